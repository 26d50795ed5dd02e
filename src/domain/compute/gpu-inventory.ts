// Products from the driver's inventory (compat-decisions, GPU compute): a driver that knows
// the GPUs it runs workloads on (`ComputeDriver.inventory`: docker, one server, one cluster)
// keeps that cluster's inventory rows true. Each GPU counts for the one product whose
// `gpuModel` it matches (gpuModelMatches; the most specific such product, see gpuCounts),
// each product of the catalogue gets `totalGpus` = its GPUs there (0 for a product with a row
// and none any more), and the free GPUs the tenant's product list shows follow from it
// through availability(), as they do for an operator's rows. Run by the `compute.sample` job
// (every 15 s; the first time within 15 s of a start: the job's row is due by then). The
// operator's inventory PUT is refused for that cluster (setOperatorInventory): the next sync
// would undo it. A driver that reads no GPUs (a CPU-only server: no nvidia-smi, none listed)
// or cannot read them leaves the rows, and the PUT, to the operator: CPU-only instances and
// workers take a product's inventory too, and a passing failure must not empty the catalogue.
// A CPU product (`gpuModel` empty or `CPU`: it sells CPU and memory, no GPU) is the operator's
// on every server: its rows are never synced and its PUT is taken, so CPU instances and
// workers run beside the GPUs. A GPU whose model is unknown (GANTRY_DOCKER_GPUS without
// `=<model>` and no nvidia-smi to name it) stops the sync with the reason: counting it for no
// product would set every GPU product of the server to 0.
import type { GpuDevice } from '../../drivers/types.ts';
import * as q from '../../store/compute.ts';
import type { Compute } from './compute.ts';
import { setInventory } from './catalogue.ts';
import { inventoryFollowsDriver } from './errors.ts';

/** A product that sells CPU and memory, no GPU: its inventory is the operator's, whatever the driver reads. */
export function isCpuProduct(p: Pick<q.ProductRow, 'gpuModel'>): boolean {
  const m = norm(p.gpuModel);
  return m === '' || m === 'cpu';
}

/** Lower case, runs of spaces as one, trimmed. */
function norm(s: string): string {
  return s.toLowerCase().replace(/\s+/g, ' ').trim();
}

const WORD = /[a-z0-9]/;

/**
 * Whether a GPU nvidia-smi names `gpuName` is a product's `gpuModel`: the model, case and
 * runs of spaces aside, is a run of whole words of the name — it appears in it with no letter
 * or digit glued to either end. `H200` is `NVIDIA H200`; `RTX 4090` is `NVIDIA GeForce RTX
 * 4090`; `A100` is `NVIDIA A100-SXM4-80GB`; `A10` is not `NVIDIA A100-SXM4-80GB`, nor `H20`
 * `NVIDIA H200`. An empty model or name matches nothing.
 */
export function gpuModelMatches(gpuModel: string, gpuName: string): boolean {
  const model = norm(gpuModel);
  const name = norm(gpuName);
  if (!model || !name) return false;
  for (let at = name.indexOf(model); at >= 0; at = name.indexOf(model, at + 1)) {
    const before = name[at - 1] ?? ' ';
    const after = name[at + model.length] ?? ' ';
    if (!WORD.test(before) && !WORD.test(after)) return true;
  }
  return false;
}

/**
 * How many of `gpus` each product gets. A GPU counts once, for the product it matches with the
 * longest `gpuModel` (the most specific: `H100 NVL` before `H100`); between products of the
 * same model, one on sale before one that is not, then the lowest id. Two products of one
 * model on one server do not share its GPUs: the inventory has no shared pools (each product
 * would show every GPU free while they could be given once).
 */
export function gpuCounts(products: readonly Pick<q.ProductRow, 'id' | 'gpuModel' | 'available'>[], gpus: readonly Pick<GpuDevice, 'name'>[]): Map<string, number> {
  const ranked = [...products].sort((a, b) =>
    norm(b.gpuModel).length - norm(a.gpuModel).length || Number(b.available) - Number(a.available) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const counts = new Map<string, number>();
  for (const g of gpus) {
    const p = ranked.find((x) => gpuModelMatches(x.gpuModel, g.name));
    if (p) counts.set(p.id, (counts.get(p.id) ?? 0) + 1);
  }
  return counts;
}

export interface InventorySync {
  clusterId: string;
  gpus: number;
  /** the rows that changed (`from` undefined: a new row) */
  changed: { productId: string; from: number | undefined; to: number }[];
  /** the cluster is not in the catalogue: nothing was written */
  missingCluster?: boolean;
  /** GPUs no product's gpuModel matches (their names) */
  unmatched: string[];
}

/**
 * Make the driver's cluster's inventory rows what its GPUs are; undefined for a driver
 * without an inventory. Rejects when the GPUs cannot be read: the rows stay as they were (a
 * passing failure of nvidia-smi does not empty the catalogue).
 */
export async function syncDriverInventory(c: Compute): Promise<InventorySync | undefined> {
  const inv = c.driver.inventory;
  if (!inv) return undefined;
  const gpus = await inv.gpus();
  const clusterId = inv.clusterId;
  const out: InventorySync = { clusterId, gpus: gpus.length, changed: [], unmatched: [] };
  if (!gpus.length) return out; // a server without GPUs: its cluster's inventory stays the operator's (CPU workloads take it too)
  const unnamed = gpus.filter((g) => !g.name.trim()).map((g) => g.uuid);
  if (unnamed.length) {
    throw new Error(`the model of GPU ${unnamed.join(', ')} is unknown (nvidia-smi cannot be read here): list it as <uuid>=<model> in GANTRY_DOCKER_GPUS, e.g. ${unnamed[0]}=NVIDIA H200`);
  }
  const [cluster, all, rows] = await Promise.all([q.findCluster(c.ctx.db, clusterId), q.listProducts(c.ctx.db), q.listInventory(c.ctx.db)]);
  const products = all.filter((p) => !isCpuProduct(p));
  if (!cluster) return { ...out, missingCluster: true };
  const counts = gpuCounts(products, gpus);
  out.unmatched = gpus.filter((g) => !products.some((p) => gpuModelMatches(p.gpuModel, g.name))).map((g) => g.name || g.uuid);
  const current = new Map(rows.filter((r) => r.clusterId === clusterId).map((r) => [r.productId, r.totalGpus]));
  for (const p of products) {
    const to = counts.get(p.id) ?? 0;
    const from = current.get(p.id);
    if (from === to || (from === undefined && to === 0)) continue;
    await setInventory(c.ctx, p.id, clusterId, to);
    out.changed.push({ productId: p.id, from, to });
  }
  return out;
}

/**
 * The operator's inventory PUT: refused (409) for the cluster whose GPUs the driver reads, whose
 * rows the next sync would set back; any other cluster's rows are the operator's.
 */
export async function setOperatorInventory(c: Compute, productId: string, clusterId: string, totalGpus: number): Promise<void> {
  const inv = c.driver.inventory;
  if (inv && inv.clusterId === clusterId && !(await isCpu(c, productId)) && (await driverHasGpus(inv))) throw inventoryFollowsDriver(clusterId);
  await setInventory(c.ctx, productId, clusterId, totalGpus);
}

/** Whether the product exists and is a CPU product (an unknown one is answered by setInventory). */
async function isCpu(c: Compute, productId: string): Promise<boolean> {
  const p = await q.findProduct(c.ctx.db, productId);
  return p !== undefined && isCpuProduct(p);
}

/** Whether the driver reads GPUs now (the sync then owns its cluster's rows); not when they cannot be read: the sync leaves the rows too. */
async function driverHasGpus(inv: NonNullable<Compute['driver']['inventory']>): Promise<boolean> {
  return (await inv.gpus().catch(() => [])).length > 0;
}
