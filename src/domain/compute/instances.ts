// Instance operations of the tenant API. What each operation may do from each state is
// decided by TRANSITIONS (./states.ts) only; the reconciler does the work afterwards.
import { logCreatedTx } from './logs.ts';
import { freeGpusTx } from './catalogue.ts';
import type { AppError } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import { unitsToMicro } from '../../lib/money.ts';
import type { Tx } from '../../store/db.ts';
import * as q from '../../store/compute.ts';
import type { Principal } from '../roles.ts';
import { postFixedTermBillTx } from '../billing/fixed-term.ts';
import { setHoldTx, holdOf } from '../spend/holds.ts';
import { requireProduct, retiredClusterIds } from './catalogue.ts';
import { openTemplateCredential, requireUsableTemplate, paging } from './templates.ts';
import { credentialIdFor, parseInlineCredential, requireRegistryAuth } from './registry-auths.ts';
import { requireNetworkStorage, resolveNetworkMounts } from './network-storage.ts';
import { checkEnvs, checkLength, envsOf, parsePortList } from './limits.ts';
import { payerOf, type Compute } from './compute.ts';
import { moveTx, nextCheckAt, writeInstanceTx } from './status.ts';
import { BILLING_METHOD_OF, BILLING_MODES, isStatus, nextStatus, INSTANCE_STATUSES, type BillingMode, type InstanceStatus, type Operation } from './states.ts';
import { deferChange, inTransaction } from '../changes.ts';
import { bad, computeNotFound, insufficient, wrongState } from './errors.ts';


export interface CreateInstanceInput {
  name?: string | undefined;
  productId: string;
  gpuNum: number;
  rootfsSize?: number | undefined;
  imageUrl?: string | undefined;
  imageAuth?: string | undefined;
  imageAuthId?: string | undefined;
  templateId?: string | undefined;
  ports?: string | undefined;
  envs?: { key: string; value: string }[] | undefined;
  /** alias of envs (compat.md) */
  env?: { key: string; value: string }[] | undefined;
  tools?: unknown[] | undefined;
  command?: string | undefined;
  entrypoint?: string | undefined;
  clusterId?: string | undefined;
  networkStorages?: { Id: string; mountPoint: string }[] | undefined;
  kind: string;
  month?: number | undefined;
  billingMode?: string | undefined;
}

/** Add whole calendar months (UTC), clamping to the month's last day (Jan 31 + 1 → Feb 28). */
export function addMonthsS(fromS: number, months: number): number {
  const d = new Date(fromS * 1000);
  const y = d.getUTCFullYear();
  const m = d.getUTCMonth() + months;
  const last = new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
  return Math.floor(Date.UTC(y, m, Math.min(d.getUTCDate(), last), d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds()) / 1000);
}

/** the longest term a monthly instance is bought or renewed for */
export const MAX_TERM_MONTHS = 36;
export const MAX_GPUS_PER_INSTANCE = 8;

function checkMonth(month: number | undefined): number {
  if (month === undefined || !Number.isInteger(month) || month < 1 || month > MAX_TERM_MONTHS) throw bad('month', `must be an integer of months in 1-${MAX_TERM_MONTHS}`);
  return month;
}

/** One hour of the instance's GPUs at its price: what a metered start must be able to pay. */
export function firstHourMicro(priceUnitsPerGpuHour: bigint, gpuNum: number): bigint {
  return unitsToMicro(priceUnitsPerGpuHour * BigInt(gpuNum));
}

export async function createInstance(c: Compute, p: Principal, input: CreateInstanceInput): Promise<string> {
  const now = c.ctx.clock.nowMs();
  const spec = await checkInstanceSpec(c, p, input);
  const mounts = await checkNetworkMounts(c, p, input);
  const month = spec.billingMode === 'monthly' ? checkMonth(input.month) : undefined;
  const auth = await checkImageAuth(c, p, input, spec);
  const tools = (input.tools ?? []).map((t) => (typeof t === 'string' ? t : String((t as { name?: unknown })?.name ?? ''))).filter(Boolean);
  const charge = firstCharge(spec, input.gpuNum, month);
  const placement = await candidateClusters(c, spec.product, input.clusterId, mounts.cluster);
  // An inline credential becomes a stored (sealed) one so the instance refers to it by id.
  const imageAuthId = auth.inline ? await credentialIdFor(c, p.teamId, auth.inline.name, auth.inline.cred) : auth.imageAuthId;
  const id = newId('instance', now);
  await c.spend.withReservation(payerOf(p), charge.firstChargeMicro, charge.what, () => inTransaction(c.ctx, async (tx) => {
    const clusterId = await pickClusterTx(tx, spec.product, input.gpuNum, placement);
    await insertInstanceTx(tx, now, {
      id, p, input, spec, clusterId, imageAuthId, tools, volumeMounts: mounts.volumeMounts, month, charge,
    });
  }));
  return id;
}

type Product = Awaited<ReturnType<typeof requireProduct>>;

/** What the instance runs: the request's values, else its template's, each checked against the product. */
async function checkInstanceSpec(c: Compute, p: Principal, input: CreateInstanceInput) {
  const tpl = input.templateId ? await requireUsableTemplate(c.ctx, p.teamId, input.templateId) : undefined;
  const product = await requireProduct(c.ctx, input.productId);
  if (!product.available) throw insufficient(`product ${product.id} is not available`, { productId: product.id });
  const billingMode = (input.billingMode ?? 'onDemand') as BillingMode;
  if (!(BILLING_MODES as readonly string[]).includes(billingMode)) throw bad('billingMode', 'must be onDemand, monthly or spot');
  if (!product.billingMethods.includes(billingMode)) throw bad('billingMode', `product ${product.id} does not offer ${billingMode}`);
  if (!['gpu', 'cpu'].includes(input.kind)) throw bad('kind', 'must be gpu or cpu');
  if (!Number.isInteger(input.gpuNum) || input.gpuNum < 1 || input.gpuNum > MAX_GPUS_PER_INSTANCE) throw bad('gpuNum', `must be an integer in 1-${MAX_GPUS_PER_INSTANCE}`);
  const name = input.name ?? '';
  checkLength('name', name, 0, 255);
  const imageUrl = input.imageUrl || tpl?.image;
  if (!imageUrl) throw bad('imageUrl', 'is required (or give templateId)');
  checkLength('imageUrl', imageUrl, 1, 500);
  const rootfsSize = input.rootfsSize ?? tpl?.rootfsSize;
  if (rootfsSize === undefined) throw bad('rootfsSize', 'is required (or give templateId)');
  if (!Number.isInteger(rootfsSize) || rootfsSize < product.minRootfsGb || rootfsSize > product.maxRootfsGb) {
    throw bad('rootfsSize', `must be an integer in ${product.minRootfsGb}-${product.maxRootfsGb} GB for ${product.name}`);
  }
  const command = input.command ?? tpl?.startCommand ?? '';
  const entrypoint = input.entrypoint ?? tpl?.entrypoint ?? '';
  checkLength('command', command, 0, 2047);
  checkLength('entrypoint', entrypoint, 0, 2047);
  const ports = input.ports !== undefined ? parsePortList('ports', input.ports)
    : (tpl?.ports ?? []).flatMap((e) => e.ports.map((port) => ({ port, type: e.type })));
  const given = envsOf('', input);
  const envs = given.envs ?? tpl?.envs ?? [];
  checkEnvs(given.field, envs);
  return { tpl, product, billingMode, name, imageUrl, rootfsSize, command, entrypoint, ports, envs };
}

type InstanceSpec = Awaited<ReturnType<typeof checkInstanceSpec>>;

/** The team's network volumes to mount, and the one cluster they are in. */
async function checkNetworkMounts(c: Compute, p: Principal, input: CreateInstanceInput) {
  // Network volumes live in one cluster: the instance must run there.
  const volumeMounts: { type: string; size: string; id: string; mountPath: string }[] = [];
  let cluster: string | undefined;
  for (const [i, ns] of (input.networkStorages ?? []).entries()) {
    const vol = await requireNetworkStorage(c.ctx, p.teamId, ns.Id);
    checkLength(`networkStorages[${i}].mountPoint`, ns.mountPoint, 1, 255);
    if (!ns.mountPoint.startsWith('/')) throw bad(`networkStorages[${i}].mountPoint`, 'must be an absolute path');
    if (cluster && vol.clusterId !== cluster) throw bad(`networkStorages[${i}].Id`, 'all network storages must be in one cluster');
    if (input.clusterId && vol.clusterId !== input.clusterId) throw bad(`networkStorages[${i}].Id`, `is in cluster ${vol.clusterId}, not ${input.clusterId}`);
    cluster = vol.clusterId;
    volumeMounts.push({ type: 'network', size: String(vol.sizeGb), id: vol.id, mountPath: ns.mountPoint });
  }
  return { volumeMounts, cluster };
}

/** The image's registry credential: a stored one's id, or an inline one still to be stored (credentialIdFor). */
async function checkImageAuth(c: Compute, p: Principal, input: CreateInstanceInput, spec: InstanceSpec) {
  const { tpl, imageUrl } = spec;
  // The request's credential (an id, or inline) wins over the template's (an id, or sealed inline).
  const own = input.imageAuthId !== undefined || !!input.imageAuth;
  const imageAuthId = input.imageAuthId ?? (!own && tpl && !tpl.imageAuthEnc ? tpl.imageAuth : '');
  if (imageAuthId) await requireRegistryAuth(c.ctx, p.teamId, imageAuthId);
  const inline = !imageAuthId && input.imageAuth ? { name: `image ${imageUrl}`.slice(0, 255), cred: parseInlineCredential('imageAuth', input.imageAuth) }
    : !own && tpl?.imageAuthEnc ? { name: `template ${tpl.id}`, cred: openTemplateCredential(c.secrets, tpl)! } : undefined;
  return { imageAuthId, inline };
}

/** The price of the billing mode, and what admission reserves for it. */
function firstCharge(spec: InstanceSpec, gpuNum: number, month: number | undefined) {
  const { product, billingMode } = spec;
  const price = billingMode === 'monthly' ? product.monthlyPriceUnitsPerGpu : billingMode === 'spot' ? product.spotPriceUnitsPerGpuHour : product.priceUnitsPerGpuHour;
  // Metered modes must afford the first hour (held until charged); monthly pays the whole term up front.
  const firstChargeMicro = unitsToMicro(price * BigInt(gpuNum) * BigInt(month ?? 1));
  const what = billingMode === 'monthly' ? `${month} month(s) of ${gpuNum} × ${product.name}` : `the first hour of ${gpuNum} × ${product.name}`;
  return { price, firstChargeMicro, what };
}

/** The clusters the instance may run in: the one asked for or holding its volumes, else every cluster stocking the product. */
async function candidateClusters(c: Compute, product: Product, clusterId: string | undefined, storageCluster: string | undefined) {
  const pinned = clusterId ?? storageCluster;
  const retired = await retiredClusterIds(c.ctx);
  const clusters = pinned ? [pinned] : (await q.listInventory(c.ctx.db)).filter((i) => i.productId === product.id && !retired.has(i.clusterId)).map((i) => i.clusterId);
  if (clusterId && !(await q.findCluster(c.ctx.db, clusterId))) {
    throw computeNotFound('cluster', clusterId);
  }
  if (pinned && retired.has(pinned)) throw bad(clusterId ? 'clusterId' : 'networkStorages', `cluster ${pinned} is retired: no new instance is created there`);
  return { pinned, clusters };
}

/** The first candidate cluster with enough free GPUs, under the transaction that takes them. */
async function pickClusterTx(tx: Tx, product: Product, gpuNum: number, placement: { pinned: string | undefined; clusters: string[] }): Promise<string> {
  for (const cl of placement.clusters) {
    if ((await freeGpusTx(tx, product.id, cl)) >= gpuNum) return cl;
  }
  const where = placement.pinned ? ` in cluster ${placement.pinned}` : '';
  throw insufficient(`not enough free ${product.name} GPUs (${gpuNum} requested)${where}`, { productId: product.id, gpuNum });
}

/** The instance row (toCreate: the reconciler starts it), its log line, and its first charge: the term's bill, or the first hour's hold. */
async function insertInstanceTx(tx: Tx, now: number, o: {
  id: string; p: Principal; input: CreateInstanceInput; spec: InstanceSpec; clusterId: string; imageAuthId: string; tools: string[];
  volumeMounts: q.InstanceInsert['volumeMounts']; month: number | undefined; charge: ReturnType<typeof firstCharge>;
}): Promise<void> {
  const { id, p, input, spec, month, charge } = o;
  const { product, billingMode } = spec;
  const nowS = Math.floor(now / 1000);
  const endTimeS = month ? addMonthsS(nowS, month) : -1;
  const row: q.InstanceInsert = {
    id, teamId: p.teamId, memberId: p.memberId, keyId: p.keyId, name: spec.name, clusterId: o.clusterId, productId: product.id, productName: product.name,
    templateId: spec.tpl?.id ?? null, status: 'toCreate', statusSinceMs: now, imageUrl: spec.imageUrl, imageAuthId: o.imageAuthId, command: spec.command,
    entrypoint: spec.entrypoint, gpuNum: input.gpuNum, cpuNum: product.cpuPerGpu * input.gpuNum, memoryGb: product.memoryPerGpuGb * input.gpuNum,
    rootfsSize: spec.rootfsSize, ports: spec.ports, envs: spec.envs, tools: o.tools, volumeMounts: o.volumeMounts, kind: input.kind, billingMode,
    priceUnits: charge.price, endTimeS, spotStatus: billingMode === 'spot' ? 'running' : '', spotReclaimTimeS: 0, nextReconcileAtMs: now,
    createdAt: new Date(now), updatedAt: new Date(now),
  };
  await q.insertInstance(tx, row);
  deferChange({ type: 'instance.changed', teamId: row.teamId, instanceId: row.id }); // a cached "no such instance" goes
  await logCreatedTx(tx, row, now);
  if (month) {
    await postFixedTermBillTx(tx, now, {
      teamId: p.teamId, amountMicro: charge.firstChargeMicro, idempotencyKey: `instance:${id}:monthly_new_buy`, productId: product.id,
      productName: product.name, productCategory: 'gpu', ownerId: id, tradeType: 'monthly_new_buy', billingMethod: BILLING_METHOD_OF.monthly,
      basePriceUnits: charge.price, billNum: String(input.gpuNum * month), startTimeS: nowS, endTimeS, memberId: p.memberId,
      keyId: p.keyId,
    });
  } else {
    await setHoldTx(tx, { ownerId: id, payer: payerOf(p) }, charge.firstChargeMicro, now);
  }
}

/** An instance of the caller's team; another team's answers as missing. */
export async function requireInstance(c: Compute, teamId: string, id: string, tx?: Tx): Promise<q.InstanceRow> {
  const row = tx ? await q.lockInstance(tx, id) : await q.findInstance(c.ctx.db, id);
  if (!row || row.teamId !== teamId) throw computeNotFound('instance', id);
  return row;
}

function refuse(op: Operation, row: q.InstanceRow): AppError {
  return wrongState(`cannot ${op} instance ${row.id}: it is ${row.status}`, {
    field: 'instanceId', rule: `${op} is not allowed while the instance is ${row.status}`, operation: op, state: row.status, instanceId: row.id,
  });
}

/** Look the operation up in the transition table under the instance lock, then apply it. */
async function operate(c: Compute, teamId: string, id: string, op: Operation, apply: (tx: Tx, row: q.InstanceRow, to: InstanceStatus, now: number) => Promise<void>): Promise<void> {
  await inTransaction(c.ctx, async (tx) => {
    const row = await requireInstance(c, teamId, id, tx);
    const to = nextStatus(op, row.status as InstanceStatus);
    if (!to) throw refuse(op, row);
    await apply(tx, row, to, c.ctx.clock.nowMs());
  });
}

/**
 * A metered instance that starts (again) must be able to pay its first hour: reserve what
 * its hold lacks, set the hold inside the operation, then give the reservation back.
 */
async function withFirstHour(c: Compute, teamId: string, id: string, op: Operation, run: (hold: (tx: Tx, row: q.InstanceRow, now: number) => Promise<void>) => Promise<void>): Promise<void> {
  const pre = await requireInstance(c, teamId, id);
  if (pre.billingMode === 'monthly' || !nextStatus(op, pre.status as InstanceStatus)) return run(async () => {});
  const hour = firstHourMicro(pre.priceUnits, pre.gpuNum);
  const lacking = hour - await holdOf(c.ctx.db, pre.id);
  await c.spend.withReservation(payerOf(pre), lacking, `the first hour of ${pre.gpuNum} × ${pre.productName}`, () =>
    run((tx, row, now) => setHoldTx(tx, { ownerId: row.id, payer: payerOf(row) }, hour, now)));
}

export async function startInstance(c: Compute, p: Principal, id: string): Promise<void> {
  await withFirstHour(c, p.teamId, id, 'start', (hold) => operate(c, p.teamId, id, 'start', async (tx, row, to, now) => {
    if (row.billingMode === 'monthly' && row.endTimeS * 1000 <= now) {
      throw wrongState(`cannot start instance ${row.id}: its subscription ended at ${row.endTimeS}; renew it first`, { operation: 'start', state: row.status, endTime: String(row.endTimeS) });
    }
    // An exited instance gave its GPUs back; it needs them again.
    if ((await freeGpusTx(tx, row.productId, row.clusterId)) < row.gpuNum) {
      throw insufficient(`not enough free ${row.productName} GPUs in cluster ${row.clusterId} to start`, { productId: row.productId, gpuNum: row.gpuNum });
    }
    await moveTx(tx, c, row, to, now, {
      statusErrorState: '', statusErrorMessage: '',
      ...(row.billingMode === 'spot' ? { spotStatus: 'running', spotReclaimTimeS: 0 } : {}),
    });
    await hold(tx, row, now);
  }));
}

export async function stopInstance(c: Compute, p: Principal, id: string): Promise<void> {
  await operate(c, p.teamId, id, 'stop', (tx, row, to, now) => moveTx(tx, c, row, to, now).then(() => undefined));
}
export async function restartInstance(c: Compute, p: Principal, id: string): Promise<void> {
  await withFirstHour(c, p.teamId, id, 'restart', (hold) => operate(c, p.teamId, id, 'restart', async (tx, row, to, now) => {
    await moveTx(tx, c, row, to, now);
    await hold(tx, row, now);
  }));
}
export async function deleteInstance(c: Compute, p: Principal, id: string): Promise<void> {
  await operate(c, p.teamId, id, 'delete', (tx, row, to, now) => moveTx(tx, c, row, to, now).then(() => undefined));
}

/** Ports are replaced; the root disk may only grow (up to the product's maximum). */
export async function editInstance(c: Compute, p: Principal, id: string, e: { ports?: string | undefined; expandRootDisk?: number | undefined }): Promise<void> {
  const ports = e.ports !== undefined ? parsePortList('ports', e.ports) : undefined;
  // read outside the transaction: the embedded store has one connection
  const product = await requireProduct(c.ctx, (await requireInstance(c, p.teamId, id)).productId);
  await operate(c, p.teamId, id, 'edit', async (tx, row, _to, now) => {
    const patch: Partial<q.InstanceInsert> = { updatedAt: new Date(now) };
    if (ports) patch.ports = ports;
    if (e.expandRootDisk !== undefined) {
      if (!Number.isInteger(e.expandRootDisk) || e.expandRootDisk <= row.rootfsSize || e.expandRootDisk > product.maxRootfsGb) {
        throw bad('expandRootDisk', `must be the new root disk size in GB, greater than ${row.rootfsSize} and at most ${product.maxRootfsGb}`);
      }
      patch.rootfsSize = e.expandRootDisk;
    }
    await writeInstanceTx(tx, row, patch);
  });
}

/** The upgrade body of compat.md: every field is given in full and replaces the instance's. */
export interface UpgradeInput {
  imageUrl: string;
  /** '' for a public image */
  imageAuthId: string;
  envs: { key: string; value: string }[];
  command: string;
  /** optional (newer vendor clients send it): replaces the entrypoint when given */
  entrypoint?: string | undefined;
  /**
   * Keep the previous root disk's data. Accepted and not acted on: neither driver keeps a root
   * disk across a workload's recreation (network storage is what persists); see docs/compute.md.
   */
  save: boolean;
  /** the instance's network storages from now on; an empty list unmounts them all */
  networkVolume: { volumeMounts: { type: string; id: string; mountPath: string }[] };
}

/** A new image, envs, command and network volumes: the workload is recreated (toReset → resetting → running). */
export async function upgradeInstance(c: Compute, p: Principal, id: string, u: UpgradeInput): Promise<void> {
  checkLength('imageUrl', u.imageUrl, 1, 500);
  checkLength('command', u.command, 0, 2047);
  checkLength('entrypoint', u.entrypoint, 0, 2047);
  checkEnvs('envs', u.envs);
  if (u.imageAuthId) await requireRegistryAuth(c.ctx, p.teamId, u.imageAuthId);
  // read outside the transaction (the embedded store has one connection); the cluster is checked again under the lock
  const pre = await requireInstance(c, p.teamId, id);
  const mounts = await resolveNetworkMounts(c.ctx, p.teamId, 'networkVolume.volumeMounts', pre.clusterId, u.networkVolume.volumeMounts);
  await operate(c, p.teamId, id, 'upgrade', async (tx, row, to, now) => {
    if (row.clusterId !== pre.clusterId) {
      throw wrongState(`instance ${row.id} moved to cluster ${row.clusterId} during the upgrade; send it again`, { field: 'instanceId', rule: 'the instance moved to another cluster', instanceId: row.id });
    }
    await moveTx(tx, c, row, to, now, {
      imageUrl: u.imageUrl, imageAuthId: u.imageAuthId, envs: u.envs, command: u.command, entrypoint: u.entrypoint ?? row.entrypoint,
      volumeMounts: [...row.volumeMounts.filter((v) => v.type !== 'network'), ...mounts], statusErrorState: '', statusErrorMessage: '',
    });
  });
}

export async function renewInstance(c: Compute, p: Principal, id: string, monthIn: number | undefined): Promise<void> {
  const month = checkMonth(monthIn);
  const pre = await requireInstance(c, p.teamId, id);
  if (pre.billingMode !== 'monthly') throw bad('instanceId', `instance ${id} is ${pre.billingMode}; only monthly instances are renewed`);
  const amount = unitsToMicro(pre.priceUnits * BigInt(pre.gpuNum * month));
  await c.spend.withReservation(payerOf(pre), amount, `${month} more month(s) of ${pre.gpuNum} × ${pre.productName}`, () => operate(c, p.teamId, id, 'renew', async (tx, row, _to, now) => {
    const nowS = Math.floor(now / 1000);
    const fromS = Math.max(row.endTimeS, nowS);
    const endTimeS = addMonthsS(fromS, month);
    await postFixedTermBillTx(tx, now, {
      teamId: row.teamId, amountMicro: amount, idempotencyKey: `instance:${row.id}:monthly_re_buy:${row.endTimeS}`, productId: row.productId,
      productName: row.productName, productCategory: 'gpu', ownerId: row.id, tradeType: 'monthly_re_buy', billingMethod: BILLING_METHOD_OF.monthly,
      basePriceUnits: row.priceUnits, billNum: String(row.gpuNum * month), startTimeS: fromS, endTimeS, memberId: row.memberId,
      keyId: row.keyId,
    });
    const patch: Partial<q.InstanceInsert> = { endTimeS, updatedAt: new Date(now) };
    patch.nextReconcileAtMs = nextCheckAt(c, { ...row, endTimeS }, row.status as InstanceStatus, now);
    await writeInstanceTx(tx, row, patch);
  }));
}

/** Pay-as-you-go becomes a subscription: GPU time so far is billed, then the term is bought. */
export async function toMonthly(c: Compute, p: Principal, id: string, monthIn: number | undefined): Promise<void> {
  const month = checkMonth(monthIn);
  const pre = await requireInstance(c, p.teamId, id);
  if (pre.billingMode !== 'onDemand') throw bad('instanceId', `instance ${id} is ${pre.billingMode}; only onDemand instances convert to monthly`);
  const product = await requireProduct(c.ctx, pre.productId);
  if (!product.billingMethods.includes('monthly')) throw bad('instanceId', `product ${product.id} does not offer monthly`);
  const amount = unitsToMicro(product.monthlyPriceUnitsPerGpu * BigInt(pre.gpuNum * month));
  await c.spend.withReservation(payerOf(pre), amount, `${month} month(s) of ${pre.gpuNum} × ${pre.productName}`, () => operate(c, p.teamId, id, 'toMonthly', async (tx, row, to, now) => {
    if (row.billingMode !== 'onDemand') throw bad('instanceId', `instance ${id} is ${row.billingMode}`);
    const nowS = Math.floor(now / 1000);
    const endTimeS = addMonthsS(nowS, month);
    await moveTx(tx, c, row, to, now, { billingMode: 'monthly', priceUnits: product.monthlyPriceUnitsPerGpu, endTimeS });
    await postFixedTermBillTx(tx, now, {
      teamId: row.teamId, amountMicro: amount, idempotencyKey: `instance:${row.id}:monthly_re_config:${nowS}`, productId: row.productId,
      productName: row.productName, productCategory: 'gpu', ownerId: row.id, tradeType: 'monthly_re_config', billingMethod: BILLING_METHOD_OF.monthly,
      basePriceUnits: product.monthlyPriceUnitsPerGpu, billNum: String(row.gpuNum * month), startTimeS: nowS, endTimeS, memberId: row.memberId,
      keyId: row.keyId,
    });
  }));
}

export async function listInstances(c: Compute, teamId: string, f: { pageSize?: number | undefined; pageNum?: number | undefined; name?: string | undefined; productName?: string | undefined; status?: string | undefined }) {
  checkLength('name', f.name, 0, 255);
  checkLength('productName', f.productName, 0, 255);
  checkLength('status', f.status, 0, 63);
  if (f.status && !isStatus(f.status)) throw bad('status', `must be one of ${INSTANCE_STATUSES.join(', ')}`);
  const pg = paging(f.pageSize, f.pageNum);
  return q.listInstances(c.ctx.db, {
    teamId, limit: pg.limit, offset: pg.offset,
    ...(f.name ? { name: f.name } : {}), ...(f.productName ? { productName: f.productName } : {}), ...(f.status ? { status: f.status } : {}),
  });
}

export async function clusterNames(c: Compute): Promise<Map<string, string>> {
  return new Map((await q.listClusters(c.ctx.db)).map((cl) => [cl.id, cl.name]));
}

// ---- operator actions ----

/** The provider takes a spot instance's capacity back: notice now, stop at spotReclaimTime. */
export async function reclaimSpot(c: Compute, id: string, noticeMs = c.timings.spotNoticeMs): Promise<void> {
  await inTransaction(c.ctx, async (tx) => {
    const row = await q.lockInstance(tx, id);
    if (!row) throw computeNotFound('instance', id);
    if (row.billingMode !== 'spot') throw bad('instanceId', `instance ${id} is ${row.billingMode}, not spot`);
    if (row.spotStatus !== 'running') throw wrongState(`instance ${id} is already ${row.spotStatus}`, { state: row.spotStatus });
    const now = c.ctx.clock.nowMs();
    const reclaimS = Math.ceil((now + noticeMs) / 1000);
    const patch: Partial<q.InstanceInsert> = { spotStatus: 'notified', spotReclaimTimeS: reclaimS, updatedAt: new Date(now) };
    const at = nextCheckAt(c, { ...row, spotStatus: 'notified', spotReclaimTimeS: reclaimS }, row.status as InstanceStatus, now);
    patch.nextReconcileAtMs = at;
    await writeInstanceTx(tx, row, patch);
  });
}

/** Move a running instance to another cluster with capacity for it. */
export async function migrateInstance(c: Compute, id: string, clusterId: string): Promise<void> {
  await inTransaction(c.ctx, async (tx) => {
    const row = await q.lockInstance(tx, id);
    if (!row) throw computeNotFound('instance', id);
    const to = nextStatus('migrate', row.status as InstanceStatus);
    if (!to) throw refuse('migrate', row);
    if (clusterId === row.clusterId) throw bad('clusterId', 'must differ from the current cluster');
    if ((await freeGpusTx(tx, row.productId, clusterId)) < row.gpuNum) {
      throw insufficient(`not enough free GPUs in cluster ${clusterId}`, { clusterId });
    }
    await moveTx(tx, c, row, to, c.ctx.clock.nowMs(), { clusterId });
  });
  await c.driver.delete(id); // the old workload goes; the reconciler creates the new one
}

