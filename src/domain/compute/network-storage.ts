// Network storage: a team's volume in one cluster, mounted into instances of that cluster.
// Sizes in GB; a volume only grows; it cannot be deleted while an instance mounts it.
// Its price is the cluster's, in units per GB-month; it is shown, not billed yet.
import { newId } from '../../lib/ids.ts';
import type { Ctx } from '../context.ts';
import * as q from '../../store/compute.ts';
import { checkLength } from './limits.ts';
import { paging } from './templates.ts';
import { bad, computeNotFound } from './errors.ts';

export const MAX_STORAGE_GB = 100_000;
/** network storages one instance may mount (the vendor's documented limit) */
export const MAX_NETWORK_MOUNTS = 30;

export interface VolumeMount {
  type: string;
  size: string;
  id: string;
  mountPath: string;
}

/**
 * The network volumes of an upgrade (`networkVolume.volumeMounts`), each judged: the team's
 * storage, in the instance's cluster, at an absolute path used once. An empty list unmounts all.
 */
export async function resolveNetworkMounts(ctx: Ctx, teamId: string, field: string, clusterId: string, mounts: { type: string; id: string; mountPath: string }[]): Promise<VolumeMount[]> {
  if (mounts.length > MAX_NETWORK_MOUNTS) throw bad(field, `at most ${MAX_NETWORK_MOUNTS} network storages, got ${mounts.length}`);
  const out: VolumeMount[] = [];
  const paths = new Set<string>();
  for (const [i, m] of mounts.entries()) {
    if (m.type !== 'network') throw bad(`${field}[${i}].type`, `must be network, got "${m.type}"`);
    checkLength(`${field}[${i}].mountPath`, m.mountPath, 1, 255);
    if (!m.mountPath.startsWith('/')) throw bad(`${field}[${i}].mountPath`, 'must be an absolute path');
    if (paths.has(m.mountPath)) throw bad(`${field}[${i}].mountPath`, `${m.mountPath} is mounted twice`);
    paths.add(m.mountPath);
    const vol = await requireNetworkStorage(ctx, teamId, m.id);
    if (vol.clusterId !== clusterId) throw bad(`${field}[${i}].id`, `is in cluster ${vol.clusterId}; the instance runs in ${clusterId}`);
    out.push({ type: 'network', size: String(vol.sizeGb), id: vol.id, mountPath: m.mountPath });
  }
  return out;
}

/** GB as an integer; a string of digits too (the vendor's update example sends one). */
function checkSize(raw: number | string): number {
  const size = typeof raw === 'string' && /^\d{1,9}$/.test(raw) ? Number(raw) : raw;
  if (typeof size !== 'number' || !Number.isInteger(size) || size < 1 || size > MAX_STORAGE_GB) throw bad('storageSize', `must be an integer in 1-${MAX_STORAGE_GB} (GB)`);
  return size;
}

export async function requireNetworkStorage(ctx: Ctx, teamId: string, id: string): Promise<q.NetworkStorageRow> {
  const row = await q.findNetworkStorage(ctx.db, id);
  if (!row || row.teamId !== teamId) throw computeNotFound('networkStorage', id, 'network storage');
  return row;
}

export async function createNetworkStorage(ctx: Ctx, teamId: string, s: { storageName: string; clusterId: string; storageSize: number }): Promise<string> {
  checkLength('storageName', s.storageName, 1, 255);
  checkSize(s.storageSize);
  const cluster = await q.findCluster(ctx.db, s.clusterId);
  if (!cluster) throw computeNotFound('cluster', s.clusterId);
  if (cluster.retiredAt) throw bad('clusterId', `cluster ${s.clusterId} is retired: nothing new is created there`);
  if (!cluster.supportNetworkStorage) throw bad('clusterId', `cluster ${s.clusterId} does not support network storage`);
  const now = ctx.clock.nowMs();
  const id = newId('networkStorage', now);
  await q.insertNetworkStorage(ctx.db, { id, teamId, clusterId: s.clusterId, name: s.storageName, sizeGb: s.storageSize, createdAt: new Date(now) });
  return id;
}

export async function updateNetworkStorage(ctx: Ctx, teamId: string, id: string, u: { storageName?: string | undefined; storageSize?: number | string | undefined }): Promise<void> {
  if (u.storageName === undefined && u.storageSize === undefined) throw bad('storageName', 'send storageName, storageSize or both: an update needs something to change');
  const row = await requireNetworkStorage(ctx, teamId, id);
  if (u.storageName !== undefined) checkLength('storageName', u.storageName, 1, 255);
  const size = u.storageSize !== undefined ? checkSize(u.storageSize) : undefined;
  if (size !== undefined && size < row.sizeGb) throw bad('storageSize', `may only grow (now ${row.sizeGb} GB)`);
  await q.updateNetworkStorage(ctx.db, id, { ...(u.storageName !== undefined ? { name: u.storageName } : {}), ...(size !== undefined ? { sizeGb: size } : {}) });
}

export async function deleteNetworkStorage(ctx: Ctx, teamId: string, id: string): Promise<void> {
  await requireNetworkStorage(ctx, teamId, id);
  const users = await q.instancesMounting(ctx.db, teamId, id);
  if (users.length) throw bad('storageId', `network storage ${id} is mounted by ${users.join(', ')}; delete those instances first`);
  await q.deleteNetworkStorage(ctx.db, id);
}

export interface NetworkStorageFilter {
  pageSize?: number | undefined;
  pageNo?: number | undefined;
  /** exact */
  storageId?: string | undefined;
  /** fuzzy (case-insensitive substring), like the other name filters */
  storageName?: string | undefined;
}

export async function listNetworkStorages(ctx: Ctx, teamId: string, f: NetworkStorageFilter = {}) {
  checkLength('storageId', f.storageId, 0, 255);
  checkLength('storageName', f.storageName, 0, 255);
  const p = paging(f.pageSize, f.pageNo, { size: 'pageSize', num: 'pageNo' });
  const [{ rows, total }, clusters] = await Promise.all([
    q.listNetworkStorages(ctx.db, { teamId, limit: p.limit, offset: p.offset, ...(f.storageId ? { id: f.storageId } : {}), ...(f.storageName ? { name: f.storageName } : {}) }),
    q.listClusters(ctx.db),
  ]);
  const byId = new Map(clusters.map((c) => [c.id, c]));
  return {
    data: rows.map((r) => ({
      storageId: r.id, storageName: r.name, storageSize: r.sizeGb, clusterId: r.clusterId, clusterName: byId.get(r.clusterId)?.name ?? '',
      // units (1/10000 USD) per GB-month, the cluster's current price
      price: (byId.get(r.clusterId)?.storagePriceUnitsPerGbMonth ?? 0n).toString(),
      createdAt: String(Math.floor(r.createdAt.getTime() / 1000)),
    })),
    total,
  };
}
