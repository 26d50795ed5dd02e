// The GPU catalogue: clusters, products with their prices, and inventory per cluster.
// Prices are units (1/10000 USD) per GPU-hour (on demand, spot) or per GPU-month (monthly).
import { invalid, notFound } from '../../lib/errors.ts';
import { MAX_PRICE_UNITS } from '../../lib/money.ts';
import type { Ctx } from '../context.ts';
import type { Tx } from '../../store/db.ts';
import * as q from '../../store/compute.ts';
import { BILLING_METHOD_OF, BILLING_MODES, RELEASED_STATUSES } from './states.ts';
import { isBillingMethod, MAX_BILLING_METHOD, MIN_BILLING_METHOD } from '../billing/codes.ts';
import { bad, computeNotFound } from './errors.ts';

export interface ClusterInput {
  id: string;
  name: string;
  region?: string | undefined;
  supportNetworkStorage?: boolean | undefined;
  supportInstanceNetwork?: boolean | undefined;
  /** network storage price, units (1/10000 USD) per GB-month; shown, not billed yet */
  storagePrice?: bigint | undefined;
}

export interface ProductInput {
  id: string;
  name: string;
  gpuModel: string;
  cpuPerGpu: number;
  memoryPerGpu: number;
  diskPerGpu: number;
  minRootfs?: number | undefined;
  maxRootfs?: number | undefined;
  price: bigint;
  spotPrice: bigint;
  monthlyPrice: bigint;
  billingMethods: string[];
  nodeSelector?: Record<string, string> | undefined;
  available?: boolean | undefined;
}

export async function upsertCluster(ctx: Ctx, c: ClusterInput): Promise<void> {
  if (!/^[\w.-]{1,64}$/.test(c.id)) throw invalid('id', 'must be 1-64 letters, digits, ., _ or -');
  if (!c.name.trim()) throw invalid('name', 'must not be empty');
  if (c.storagePrice !== undefined && (c.storagePrice < 0n || c.storagePrice > MAX_PRICE_UNITS)) throw invalid('storagePrice', `must be an integer in 0-${MAX_PRICE_UNITS}`);
  await q.upsertCluster(ctx.db, {
    id: c.id, name: c.name, region: c.region ?? '', supportNetworkStorage: c.supportNetworkStorage ?? false,
    supportInstanceNetwork: c.supportInstanceNetwork ?? false, storagePriceUnitsPerGbMonth: c.storagePrice ?? 0n,
    createdAt: new Date(ctx.clock.nowMs()), retiredAt: null, // saving a retired cluster again puts it back
  });
}

/**
 * Retires a cluster: it leaves the tenants' cluster and product lists and takes no new
 * instance, network storage or serverless endpoint; the instances, storages and endpoints
 * there keep what they have (an endpoint keeps its workers there, and may scale them).
 */
export async function retireCluster(ctx: Ctx, id: string): Promise<void> {
  if (!(await q.retireCluster(ctx.db, id, new Date(ctx.clock.nowMs())))) throw notFound('cluster', id);
}

/** The ids of retired clusters (creates skip or refuse them). */
export async function retiredClusterIds(ctx: Pick<Ctx, 'db'>): Promise<Set<string>> {
  return new Set((await q.listClusters(ctx.db)).filter((c) => c.retiredAt !== null).map((c) => c.id));
}

export async function upsertProduct(ctx: Ctx, p: ProductInput): Promise<void> {
  if (!/^[\w.-]{1,64}$/.test(p.id)) throw invalid('id', 'must be 1-64 letters, digits, ., _ or -');
  for (const m of p.billingMethods) {
    if (!(BILLING_MODES as readonly string[]).includes(m)) throw invalid('billingMethods', `must contain only ${BILLING_MODES.join(', ')}, got "${m}"`);
  }
  if (!p.billingMethods.length) throw invalid('billingMethods', 'must contain at least one billing method');
  for (const [f, v] of [['price', p.price], ['spotPrice', p.spotPrice], ['monthlyPrice', p.monthlyPrice]] as const) {
    if (v < 0n || v > MAX_PRICE_UNITS) throw invalid(f, `must be an integer in 0-${MAX_PRICE_UNITS}`);
  }
  const minRootfs = p.minRootfs ?? 10;
  const maxRootfs = p.maxRootfs ?? 500;
  if (minRootfs < 1 || maxRootfs < minRootfs) throw invalid('maxRootfs', 'must be >= minRootfs >= 1');
  await q.upsertProduct(ctx.db, {
    id: p.id, name: p.name, gpuModel: p.gpuModel, cpuPerGpu: p.cpuPerGpu, memoryPerGpuGb: p.memoryPerGpu,
    diskPerGpuGb: p.diskPerGpu, minRootfsGb: minRootfs, maxRootfsGb: maxRootfs, priceUnitsPerGpuHour: p.price,
    spotPriceUnitsPerGpuHour: p.spotPrice, monthlyPriceUnitsPerGpu: p.monthlyPrice, billingMethods: p.billingMethods,
    nodeSelector: p.nodeSelector ?? {}, available: p.available ?? true, createdAt: new Date(ctx.clock.nowMs()),
  });
}

export async function setInventory(ctx: Ctx, productId: string, clusterId: string, totalGpus: number): Promise<void> {
  if (!(await q.findProduct(ctx.db, productId))) throw notFound('product', productId);
  if (!(await q.findCluster(ctx.db, clusterId))) throw notFound('cluster', clusterId);
  if (!Number.isInteger(totalGpus) || totalGpus < 0) throw invalid('totalGpus', 'must be an integer >= 0');
  await q.setInventory(ctx.db, { productId, clusterId, totalGpus });
}

export async function requireProduct(ctx: Ctx, id: string): Promise<q.ProductRow> {
  const p = await q.findProduct(ctx.db, id);
  if (!p) throw computeNotFound('product', id);
  return p;
}

export interface Availability {
  productId: string;
  clusterId: string;
  total: number;
  used: number;
  free: number;
}

/**
 * Free GPUs of a product in a cluster, under the inventory row lock taken here: whoever
 * takes GPUs (an instance, a serverless worker) checks and inserts under this one lock.
 */
export async function freeGpusTx(tx: Tx, productId: string, clusterId: string): Promise<number> {
  const inv = await q.lockInventory(tx, productId, clusterId);
  if (!inv) return 0;
  const [used] = await q.gpusInUse(tx, RELEASED_STATUSES, productId, clusterId);
  return inv.totalGpus - (used?.used ?? 0);
}

/** Free GPUs per (product, cluster): inventory minus what unreleased instances and live serverless workers hold. */
export async function availability(ctx: Ctx): Promise<Availability[]> {
  const [inv, used] = await Promise.all([q.listInventory(ctx.db), q.gpusInUse(ctx.db, RELEASED_STATUSES)]);
  const usedOf = new Map(used.map((u) => [`${u.productId}/${u.clusterId}`, u.used]));
  return inv.map((i) => {
    const u = usedOf.get(`${i.productId}/${i.clusterId}`) ?? 0;
    return { productId: i.productId, clusterId: i.clusterId, total: i.totalGpus, used: u, free: Math.max(0, i.totalGpus - u) };
  });
}

/** compat.md's inventoryState from the share of GPUs still free. */
export function inventoryState(free: number, total: number): 'none' | 'low' | 'normal' | 'high' {
  if (free <= 0 || total <= 0) return 'none';
  const share = free / total;
  if (share < 0.2) return 'low';
  if (share < 0.6) return 'normal';
  return 'high';
}

/** A billing-method filter as a mode: `onDemand|monthly|spot`, or the interface's codes 1, 2, 4. */
function billingModeOf(v: string): string {
  const byCode = BILLING_MODES.find((m) => String(BILLING_METHOD_OF[m]) === v);
  return byCode ?? BILLING_MODES.find((m) => m.toLowerCase() === v.toLowerCase()) ?? v;
}

export async function listProductsForTenant(ctx: Ctx, f: { clusterId?: string | undefined; gpuNum?: number | undefined; productName?: string | undefined; billingMethod?: string | undefined }) {
  // A billing-method code of the interface (1-8) or a mode name; anything else is a typo
  // that would silently list nothing.
  if (f.billingMethod && !isBillingMethod(Number(f.billingMethod)) && !(BILLING_MODES as readonly string[]).includes(billingModeOf(f.billingMethod))) {
    throw bad('billingMethod', `must be a billing method code ${MIN_BILLING_METHOD}-${MAX_BILLING_METHOD} or one of ${BILLING_MODES.join(', ')}, got "${f.billingMethod}"`);
  }
  const [products, clusters, all] = await Promise.all([q.listProducts(ctx.db), q.listClusters(ctx.db), availability(ctx)]);
  const clusterName = new Map(clusters.map((c) => [c.id, c]));
  const retired = new Set(clusters.filter((c) => c.retiredAt !== null).map((c) => c.id));
  const avail = all.filter((a) => !retired.has(a.clusterId)); // a retired cluster's GPUs are not for new work
  const out = [];
  for (const p of products) {
    if (!p.available) continue;
    if (f.productName && !p.name.toLowerCase().includes(f.productName.toLowerCase())) continue;
    if (f.billingMethod && !p.billingMethods.includes(billingModeOf(f.billingMethod))) continue;
    const mine = avail.filter((a) => a.productId === p.id && (!f.clusterId || a.clusterId === f.clusterId));
    if (f.clusterId && mine.length === 0) continue;
    const free = mine.reduce((n, a) => n + a.free, 0);
    const total = mine.reduce((n, a) => n + a.total, 0);
    const maxFreeInOneCluster = mine.reduce((n, a) => Math.max(n, a.free), 0);
    out.push({
      id: p.id, name: p.name, cpuPerGpu: p.cpuPerGpu, memoryPerGpu: p.memoryPerGpuGb, diskPerGpu: p.diskPerGpuGb,
      availableDeploy: maxFreeInOneCluster >= (f.gpuNum ?? 1),
      minRootFS: p.minRootfsGb, maxRootFS: p.maxRootfsGb,
      regions: [...new Set(mine.map((a) => clusterName.get(a.clusterId)?.region || a.clusterId))],
      price: p.priceUnitsPerGpuHour.toString(),
      monthlyPrice: [1, 3, 6, 12].map((month) => ({ price: (p.monthlyPriceUnitsPerGpu * BigInt(month)).toString(), month })),
      billingMethods: p.billingMethods,
      spotPrice: p.spotPriceUnitsPerGpuHour.toString(),
      inventoryState: inventoryState(free, total),
    });
  }
  return out;
}

export async function listClustersForTenant(ctx: Ctx) {
  const [clusters, products, inv] = await Promise.all([q.listClusters(ctx.db), q.listProducts(ctx.db), q.listInventory(ctx.db)]);
  const model = new Map(products.map((p) => [p.id, p.gpuModel]));
  return clusters.filter((c) => c.retiredAt === null).map((c) => ({
    id: c.id, name: c.name,
    availableGpuType: [...new Set(inv.filter((i) => i.clusterId === c.id && i.totalGpus > 0).map((i) => model.get(i.productId) ?? i.productId))],
    supportNetworkStorage: c.supportNetworkStorage, supportInstanceNetwork: c.supportInstanceNetwork,
  }));
}

/** Clusters, products (with prices) and inventory with GPUs in use: the operator's view. */
export async function operatorCatalogue(ctx: Ctx) {
  const [clusters, products, inventory, templates] = await Promise.all([q.listClusters(ctx.db), q.listProducts(ctx.db), availability(ctx), q.listPublishedTemplates(ctx.db)]);
  const unix = (d: Date | null) => (d ? Math.floor(d.getTime() / 1000) : null);
  return {
    clusters: clusters.map((c) => ({
      id: c.id, name: c.name, region: c.region, supportNetworkStorage: c.supportNetworkStorage, supportInstanceNetwork: c.supportInstanceNetwork,
      storagePrice: c.storagePriceUnitsPerGbMonth.toString(), retiredAt: unix(c.retiredAt),
    })),
    products: products.map((p) => ({
      id: p.id, name: p.name, gpuModel: p.gpuModel, cpuPerGpu: p.cpuPerGpu, memoryPerGpu: p.memoryPerGpuGb, diskPerGpu: p.diskPerGpuGb,
      minRootfs: p.minRootfsGb, maxRootfs: p.maxRootfsGb, price: p.priceUnitsPerGpuHour.toString(), spotPrice: p.spotPriceUnitsPerGpuHour.toString(),
      monthlyPrice: p.monthlyPriceUnitsPerGpu.toString(), billingMethods: p.billingMethods, nodeSelector: p.nodeSelector, available: p.available,
    })),
    inventory,
    // official and community templates (retired ones too: retiredAt set); the image credential is not the operator's to read here
    templates: templates.map((t) => ({
      id: t.id, name: t.name, channel: t.channel, type: t.type, image: t.image, readme: t.readme, startCommand: t.startCommand, entrypoint: t.entrypoint,
      rootfsSize: t.rootfsSize, ports: t.ports, envs: t.envs, tools: t.tools, recommendCards: t.recommendCards, minCudaVersion: t.minCudaVersion, retiredAt: unix(t.retiredAt),
    })),
  };
}
