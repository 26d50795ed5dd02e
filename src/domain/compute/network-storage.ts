// Network storage: a team's volume in one cluster, mounted into instances of that cluster.
// Sizes in GB; a volume only grows; it cannot be deleted while an instance mounts it.
import { AppError, invalid } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import type { Ctx } from '../context.ts';
import * as q from '../../store/compute.ts';
import { checkLength } from './limits.ts';
import { paging } from './templates.ts';

const bad = (field: string, rule: string) => invalid(field, rule, 'VALIDATOR_PARAM');
export const MAX_STORAGE_GB = 100_000;

function checkSize(size: number): void {
  if (!Number.isInteger(size) || size < 1 || size > MAX_STORAGE_GB) throw bad('storageSize', `must be an integer in 1-${MAX_STORAGE_GB} (GB)`);
}

export async function requireNetworkStorage(ctx: Ctx, teamId: string, id: string): Promise<q.NetworkStorageRow> {
  const row = await q.findNetworkStorage(ctx.db, id);
  if (!row || row.teamId !== teamId) throw new AppError('NETWORK_STORAGE_NOT_FOUND', `network storage ${id} not found`, { resource: 'networkStorage', id });
  return row;
}

export async function createNetworkStorage(ctx: Ctx, teamId: string, s: { storageName: string; clusterId: string; storageSize: number }): Promise<string> {
  checkLength('storageName', s.storageName, 1, 255);
  checkSize(s.storageSize);
  const cluster = await q.findCluster(ctx.db, s.clusterId);
  if (!cluster) throw new AppError('RESOURCE_NOT_FOUND', `cluster ${s.clusterId} not found`, { resource: 'cluster', id: s.clusterId });
  if (!cluster.supportNetworkStorage) throw bad('clusterId', `cluster ${s.clusterId} does not support network storage`);
  const now = ctx.clock.nowMs();
  const id = newId('networkStorage', now);
  await q.insertNetworkStorage(ctx.db, { id, teamId, clusterId: s.clusterId, name: s.storageName, sizeGb: s.storageSize, createdAt: new Date(now) });
  return id;
}

export async function updateNetworkStorage(ctx: Ctx, teamId: string, id: string, u: { storageName?: string | undefined; storageSize?: number | undefined }): Promise<void> {
  const row = await requireNetworkStorage(ctx, teamId, id);
  if (u.storageName !== undefined) checkLength('storageName', u.storageName, 1, 255);
  if (u.storageSize !== undefined) {
    checkSize(u.storageSize);
    if (u.storageSize < row.sizeGb) throw bad('storageSize', `may only grow (now ${row.sizeGb} GB)`);
  }
  await q.updateNetworkStorage(ctx.db, id, { ...(u.storageName !== undefined ? { name: u.storageName } : {}), ...(u.storageSize !== undefined ? { sizeGb: u.storageSize } : {}) });
}

export async function deleteNetworkStorage(ctx: Ctx, teamId: string, id: string): Promise<void> {
  await requireNetworkStorage(ctx, teamId, id);
  const users = await q.instancesMounting(ctx.db, teamId, id);
  if (users.length) throw bad('storageId', `network storage ${id} is mounted by ${users.join(', ')}; delete those instances first`);
  await q.deleteNetworkStorage(ctx.db, id);
}

export async function listNetworkStorages(ctx: Ctx, teamId: string, pageSize?: number, pageNo?: number) {
  const p = paging(pageSize, pageNo);
  const [{ rows, total }, clusters] = await Promise.all([q.listNetworkStorages(ctx.db, teamId, p.limit, p.offset), q.listClusters(ctx.db)]);
  const names = new Map(clusters.map((c) => [c.id, c.name]));
  return {
    data: rows.map((r) => ({
      storageId: r.id, storageName: r.name, storageSize: r.sizeGb, clusterId: r.clusterId, clusterName: names.get(r.clusterId) ?? '',
      createdAt: String(Math.floor(r.createdAt.getTime() / 1000)),
    })),
    total,
  };
}
