// Queries of GPU compute: catalogue, templates, registry credentials, instances.
import { and, asc, desc, eq, ilike, inArray, isNull, lte, ne, notInArray, or, sql, type SQL } from 'drizzle-orm';
import type { DbOrTx } from './db.ts';
import { gpuClusters, gpuInventory, gpuProducts, instances, networkStorages, registryAuths, templates } from './schema-compute.ts';
import { endpoints, endpointWorkers } from './schema-serverless.ts';
import { FINAL_WORKER_STATES } from './serverless-workers.ts';

export type ClusterRow = typeof gpuClusters.$inferSelect;
export type ProductRow = typeof gpuProducts.$inferSelect;
export type InventoryRow = typeof gpuInventory.$inferSelect;
export type TemplateRow = typeof templates.$inferSelect;
export type TemplateInsert = typeof templates.$inferInsert;
export type RegistryAuthRow = typeof registryAuths.$inferSelect;
export type InstanceRow = typeof instances.$inferSelect;
export type InstanceInsert = typeof instances.$inferInsert;
export type NetworkStorageRow = typeof networkStorages.$inferSelect;

// ---- catalogue ----
export async function upsertCluster(db: DbOrTx, row: typeof gpuClusters.$inferInsert): Promise<void> {
  const { id: _i, createdAt: _c, ...rest } = row;
  await db.insert(gpuClusters).values(row).onConflictDoUpdate({ target: gpuClusters.id, set: rest });
}
/** Retires a cluster; false when there is none by that id. */
export async function retireCluster(db: DbOrTx, id: string, at: Date): Promise<boolean> {
  const done = await db.update(gpuClusters).set({ retiredAt: at }).where(eq(gpuClusters.id, id)).returning({ id: gpuClusters.id });
  return done.length > 0;
}
export async function listClusters(db: DbOrTx): Promise<ClusterRow[]> {
  return db.select().from(gpuClusters).orderBy(asc(gpuClusters.id));
}
export async function findCluster(db: DbOrTx, id: string): Promise<ClusterRow | undefined> {
  const [row] = await db.select().from(gpuClusters).where(eq(gpuClusters.id, id));
  return row;
}
export async function upsertProduct(db: DbOrTx, row: typeof gpuProducts.$inferInsert): Promise<void> {
  const { id: _i, createdAt: _c, ...rest } = row;
  await db.insert(gpuProducts).values(row).onConflictDoUpdate({ target: gpuProducts.id, set: rest });
}
export async function listProducts(db: DbOrTx): Promise<ProductRow[]> {
  return db.select().from(gpuProducts).orderBy(asc(gpuProducts.id));
}
export async function findProduct(db: DbOrTx, id: string): Promise<ProductRow | undefined> {
  const [row] = await db.select().from(gpuProducts).where(eq(gpuProducts.id, id));
  return row;
}
export async function setInventory(db: DbOrTx, row: InventoryRow): Promise<void> {
  await db.insert(gpuInventory).values(row).onConflictDoUpdate({
    target: [gpuInventory.productId, gpuInventory.clusterId], set: { totalGpus: row.totalGpus },
  });
}
export async function listInventory(db: DbOrTx): Promise<InventoryRow[]> {
  return db.select().from(gpuInventory).orderBy(asc(gpuInventory.productId), asc(gpuInventory.clusterId));
}
/** Lock one inventory row so two creations cannot both take the last GPUs. */
export async function lockInventory(db: DbOrTx, productId: string, clusterId: string): Promise<InventoryRow | undefined> {
  const [row] = await db.select().from(gpuInventory)
    .where(and(eq(gpuInventory.productId, productId), eq(gpuInventory.clusterId, clusterId))).for('update');
  return row;
}
/**
 * GPUs taken per (product, cluster): by instances not in the released statuses, and by
 * serverless workers not yet ended. A worker holds its endpoint's product, cluster and
 * gpuNum (a CPU worker, gpuNum 0, one unit: domain/serverless/metering.ts) as they are now:
 * during a rolling update that changes them, the old workers count under the new ones until
 * they stop (at most a few passes; they are draining).
 */
export async function gpusInUse(db: DbOrTx, releasedStatuses: readonly string[], productId?: string, clusterId?: string): Promise<{ productId: string; clusterId: string; used: number }[]> {
  const conds: SQL[] = [notInArray(instances.status, [...releasedStatuses])];
  if (productId) conds.push(eq(instances.productId, productId));
  if (clusterId) conds.push(eq(instances.clusterId, clusterId));
  const byInstances = await db.select({
    productId: instances.productId, clusterId: instances.clusterId, used: sql<number>`coalesce(sum(${instances.gpuNum}), 0)::int`,
  }).from(instances).where(and(...conds)).groupBy(instances.productId, instances.clusterId);
  const wProduct = sql<string>`${endpoints.spec}->>'productId'`;
  const wCluster = sql<string>`${endpoints.spec}->>'clusterId'`;
  const wConds: SQL[] = [notInArray(endpointWorkers.state, [...FINAL_WORKER_STATES])];
  if (productId) wConds.push(sql`${wProduct} = ${productId}`);
  if (clusterId) wConds.push(sql`${wCluster} = ${clusterId}`);
  const byWorkers = await db.select({
    productId: wProduct, clusterId: wCluster, used: sql<number>`coalesce(sum(greatest(1, (${endpoints.spec}->'workerConfig'->>'gpuNum')::int)), 0)::int`,
  }).from(endpointWorkers).innerJoin(endpoints, eq(endpoints.id, endpointWorkers.endpointId)).where(and(...wConds)).groupBy(wProduct, wCluster);
  const total = new Map<string, { productId: string; clusterId: string; used: number }>();
  for (const r of [...byInstances, ...byWorkers]) {
    const k = `${r.productId}/${r.clusterId}`;
    const cur = total.get(k);
    if (cur) cur.used += Number(r.used);
    else total.set(k, { productId: r.productId, clusterId: r.clusterId, used: Number(r.used) });
  }
  return [...total.values()];
}

// ---- templates ----
export async function insertTemplate(db: DbOrTx, row: typeof templates.$inferInsert): Promise<void> {
  await db.insert(templates).values(row);
}
export async function upsertTemplate(db: DbOrTx, row: typeof templates.$inferInsert): Promise<void> {
  const { id: _i, createdAt: _c, ...rest } = row;
  await db.insert(templates).values(row).onConflictDoUpdate({ target: templates.id, set: rest });
}
/** The published (official and community) templates, retired ones too, for the operator. */
export async function listPublishedTemplates(db: DbOrTx): Promise<TemplateRow[]> {
  return db.select().from(templates).where(isNull(templates.teamId)).orderBy(asc(templates.id));
}
/** Retires a published template (teamId null); false when there is none by that id. */
export async function retirePublishedTemplate(db: DbOrTx, id: string, at: Date): Promise<boolean> {
  const done = await db.update(templates).set({ retiredAt: at }).where(and(eq(templates.id, id), isNull(templates.teamId))).returning({ id: templates.id });
  return done.length > 0;
}
export async function updateTemplate(db: DbOrTx, id: string, patch: Partial<typeof templates.$inferInsert>): Promise<void> {
  await db.update(templates).set(patch).where(eq(templates.id, id));
}
export async function deleteTemplate(db: DbOrTx, id: string): Promise<void> {
  await db.delete(templates).where(eq(templates.id, id));
}
export async function findTemplate(db: DbOrTx, id: string): Promise<TemplateRow | undefined> {
  const [row] = await db.select().from(templates).where(eq(templates.id, id));
  return row;
}
/** Templates whose image_auth has no sealed counterpart: credential ids, and clear values stored before 0005. */
export async function listTemplatesWithUnsealedImageAuth(db: DbOrTx): Promise<Pick<TemplateRow, 'id' | 'imageAuth'>[]> {
  return db.select({ id: templates.id, imageAuth: templates.imageAuth }).from(templates)
    .where(and(ne(templates.imageAuth, ''), eq(templates.imageAuthEnc, '')));
}
/** Replaces a clear image_auth by its mask and sealed form, unless another process did it first. */
export async function sealTemplateImageAuth(db: DbOrTx, id: string, clear: string, masked: string, sealed: string): Promise<boolean> {
  const done = await db.update(templates).set({ imageAuth: masked, imageAuthEnc: sealed })
    .where(and(eq(templates.id, id), eq(templates.imageAuth, clear), eq(templates.imageAuthEnc, ''))).returning({ id: templates.id });
  return done.length > 0;
}
export interface TemplateFilter {
  /** the private templates of this team … */
  teamId?: string;
  /** … and (or only) the public ones (no team) of these channels */
  publicChannels?: string[];
  name?: string;
  type?: string;
  limit: number;
  offset: number;
}
export async function listTemplates(db: DbOrTx, f: TemplateFilter): Promise<{ rows: TemplateRow[]; total: number }> {
  const whose: SQL[] = [];
  if (f.teamId) whose.push(eq(templates.teamId, f.teamId));
  if (f.publicChannels?.length) whose.push(and(isNull(templates.teamId), inArray(templates.channel, f.publicChannels))!);
  if (!whose.length) return { rows: [], total: 0 };
  const conds: SQL[] = [whose.length === 1 ? whose[0]! : or(...whose)!, isNull(templates.retiredAt)];
  if (f.name) conds.push(ilike(templates.name, `%${escapeLike(f.name)}%`));
  if (f.type) conds.push(eq(templates.type, f.type));
  const where = and(...conds);
  const [count] = await db.select({ n: sql<number>`count(*)::int` }).from(templates).where(where);
  const rows = await db.select().from(templates).where(where).orderBy(desc(templates.id)).limit(f.limit).offset(f.offset);
  return { rows, total: count?.n ?? 0 };
}

// ---- registry credentials ----
export async function insertRegistryAuth(db: DbOrTx, row: typeof registryAuths.$inferInsert): Promise<void> {
  await db.insert(registryAuths).values(row);
}
export async function updateRegistryAuth(db: DbOrTx, id: string, patch: Partial<typeof registryAuths.$inferInsert>): Promise<void> {
  await db.update(registryAuths).set(patch).where(eq(registryAuths.id, id));
}
export async function findRegistryAuth(db: DbOrTx, id: string): Promise<RegistryAuthRow | undefined> {
  const [row] = await db.select().from(registryAuths).where(eq(registryAuths.id, id));
  return row;
}
export async function listRegistryAuths(db: DbOrTx, teamId: string): Promise<RegistryAuthRow[]> {
  return db.select().from(registryAuths).where(eq(registryAuths.teamId, teamId)).orderBy(asc(registryAuths.id));
}
export async function deleteRegistryAuth(db: DbOrTx, id: string): Promise<void> {
  await db.delete(registryAuths).where(eq(registryAuths.id, id));
}

// ---- instances ----
export async function insertInstance(db: DbOrTx, row: InstanceInsert): Promise<void> {
  await db.insert(instances).values(row);
}
export async function insertInstances(db: DbOrTx, rows: InstanceInsert[]): Promise<void> {
  if (rows.length) await db.insert(instances).values(rows);
}
export async function findInstance(db: DbOrTx, id: string): Promise<InstanceRow | undefined> {
  const [row] = await db.select().from(instances).where(eq(instances.id, id));
  return row;
}
export async function lockInstance(db: DbOrTx, id: string): Promise<InstanceRow | undefined> {
  const [row] = await db.select().from(instances).where(eq(instances.id, id)).for('update');
  return row;
}
/** Domain code writes a row through compute/status.ts writeInstanceTx, which announces what the ports proxy routes by (test/instance-writes.test.ts). */
export async function updateInstance(db: DbOrTx, id: string, patch: Partial<InstanceInsert>): Promise<void> {
  await db.update(instances).set(patch).where(eq(instances.id, id));
}
/** A reconcile that failed: its lease released, tried again at `nextReconcileAtMs` (nothing the ports proxy routes by). */
export async function backOffInstance(db: DbOrTx, id: string, nextReconcileAtMs: number): Promise<void> {
  await db.update(instances).set({ leaseUntilMs: 0, nextReconcileAtMs }).where(eq(instances.id, id));
}
export interface InstanceFilter {
  teamId: string;
  name?: string;
  productName?: string;
  status?: string;
  limit: number;
  offset: number;
}
function escapeLike(s: string): string {
  return s.replace(/[\\%_]/g, (c) => '\\' + c);
}
export async function listInstances(db: DbOrTx, f: InstanceFilter): Promise<{ rows: InstanceRow[]; total: number }> {
  const conds: SQL[] = [eq(instances.teamId, f.teamId)];
  if (f.name) conds.push(ilike(instances.name, `%${escapeLike(f.name)}%`));
  if (f.productName) conds.push(ilike(instances.productName, `%${escapeLike(f.productName)}%`));
  if (f.status) conds.push(eq(instances.status, f.status));
  const where = and(...conds);
  const [count] = await db.select({ n: sql<number>`count(*)::int` }).from(instances).where(where);
  // Page over ids first (the (team_id, id) index), then read only the page's rows: a deep
  // OFFSET then skips index entries instead of whole rows with their JSON columns.
  const page = await db.select({ id: instances.id }).from(instances).where(where).orderBy(desc(instances.id)).limit(f.limit).offset(f.offset);
  if (!page.length) return { rows: [], total: count?.n ?? 0 };
  const rows = await db.select().from(instances).where(inArray(instances.id, page.map((r) => r.id))).orderBy(desc(instances.id));
  return { rows, total: count?.n ?? 0 };
}

/**
 * Take a lease on up to `limit` rows that are due, so one reconciler (of any replica)
 * works on an instance at a time. A lease that ran out (a crashed replica) is taken over.
 */
export async function claimDueInstances(db: DbOrTx, nowMs: number, leaseMs: number, limit: number): Promise<InstanceRow[]> {
  const due = db.select({ id: instances.id }).from(instances)
    .where(and(lte(instances.nextReconcileAtMs, nowMs), lte(instances.leaseUntilMs, nowMs)))
    .orderBy(asc(instances.nextReconcileAtMs)).limit(limit).for('update', { skipLocked: true });
  return db.update(instances).set({ leaseUntilMs: nowMs + leaseMs })
    .where(inArray(instances.id, due)).returning();
}

/**
 * Of `ids` (workloads a driver reports), those that have a row: an instance that is not
 * removed, or a serverless worker in any state (the serverless runtime removes its workloads).
 */
export async function workloadIdsWithRows(db: DbOrTx, ids: string[]): Promise<Set<string>> {
  if (!ids.length) return new Set();
  const [ins, wks] = await Promise.all([
    db.select({ id: instances.id }).from(instances).where(and(inArray(instances.id, ids), ne(instances.status, 'removed'))),
    db.select({ id: endpointWorkers.id }).from(endpointWorkers).where(inArray(endpointWorkers.id, ids)),
  ]);
  return new Set([...ins, ...wks].map((r) => r.id));
}

/** Instances of a team holding GPUs under a billing mode (for the balance run-out stop). */
/** Instances charged to a team, a member or a key, in the given billing modes and statuses. */
export async function listInstancesChargedTo(db: DbOrTx, to: { kind: 'team' | 'member' | 'key'; id: string }, modes: string[], statuses: readonly string[]): Promise<InstanceRow[]> {
  const col = to.kind === 'team' ? instances.teamId : to.kind === 'member' ? instances.memberId : instances.keyId;
  return db.select().from(instances)
    .where(and(eq(col, to.id), inArray(instances.billingMode, modes), inArray(instances.status, [...statuses])));
}

// ---- network storage ----
export async function insertNetworkStorage(db: DbOrTx, row: typeof networkStorages.$inferInsert): Promise<void> {
  await db.insert(networkStorages).values(row);
}
export async function findNetworkStorage(db: DbOrTx, id: string): Promise<NetworkStorageRow | undefined> {
  const [row] = await db.select().from(networkStorages).where(eq(networkStorages.id, id));
  return row;
}
export async function updateNetworkStorage(db: DbOrTx, id: string, patch: Partial<typeof networkStorages.$inferInsert>): Promise<void> {
  await db.update(networkStorages).set(patch).where(eq(networkStorages.id, id));
}
export async function deleteNetworkStorage(db: DbOrTx, id: string): Promise<void> {
  await db.delete(networkStorages).where(eq(networkStorages.id, id));
}
export interface NetworkStorageFilter {
  teamId: string;
  id?: string;
  name?: string;
  limit: number;
  offset: number;
}
export async function listNetworkStorages(db: DbOrTx, f: NetworkStorageFilter): Promise<{ rows: NetworkStorageRow[]; total: number }> {
  const conds: SQL[] = [eq(networkStorages.teamId, f.teamId)];
  if (f.id) conds.push(eq(networkStorages.id, f.id));
  if (f.name) conds.push(ilike(networkStorages.name, `%${escapeLike(f.name)}%`));
  const where = and(...conds);
  const { limit, offset } = f;
  const [count] = await db.select({ n: sql<number>`count(*)::int` }).from(networkStorages).where(where);
  const rows = await db.select().from(networkStorages).where(where).orderBy(desc(networkStorages.id)).limit(limit).offset(offset);
  return { rows, total: count?.n ?? 0 };
}
/** Instances (not removed) of a team that mount the storage. */
export async function instancesMounting(db: DbOrTx, teamId: string, storageId: string): Promise<string[]> {
  const rows = await db.select({ id: instances.id }).from(instances).where(and(
    eq(instances.teamId, teamId), notInArray(instances.status, ['removed']),
    sql`${instances.volumeMounts} @> ${JSON.stringify([{ id: storageId }])}::jsonb`,
  ));
  return rows.map((r) => r.id);
}
