// Queries of instances' usage samples (domain/compute/metrics.ts).
import { and, asc, eq, gte, inArray, lt, lte } from 'drizzle-orm';
import type { DbOrTx } from './db.ts';
import { instanceMetrics, instances } from './schema-compute.ts';

export type InstanceMetricRow = typeof instanceMetrics.$inferSelect;
export type InstanceMetricInsert = typeof instanceMetrics.$inferInsert;

/** Stores samples; one already there for the same instance and time is kept (two samplers at once). */
export async function insertInstanceMetrics(db: DbOrTx, rows: InstanceMetricInsert[]): Promise<void> {
  if (!rows.length) return;
  await db.insert(instanceMetrics).values(rows).onConflictDoNothing();
}

/** The instance's samples taken from `fromMs` to `toMs` (both included), oldest first. */
export async function listInstanceMetrics(db: DbOrTx, instanceId: string, fromMs: number, toMs: number): Promise<InstanceMetricRow[]> {
  return db.select().from(instanceMetrics)
    .where(and(eq(instanceMetrics.instanceId, instanceId), gte(instanceMetrics.atMs, fromMs), lte(instanceMetrics.atMs, toMs)))
    .orderBy(asc(instanceMetrics.atMs));
}

/** Forgets samples taken before `beforeMs`. */
export async function pruneInstanceMetrics(db: DbOrTx, beforeMs: number): Promise<void> {
  await db.delete(instanceMetrics).where(lt(instanceMetrics.atMs, beforeMs));
}

/** Which of `ids` are instances (a driver's workloads are instances and serverless workers). */
export async function instanceIdsAmong(db: DbOrTx, ids: string[]): Promise<Set<string>> {
  if (!ids.length) return new Set();
  const rows = await db.select({ id: instances.id }).from(instances).where(inArray(instances.id, ids));
  return new Set(rows.map((r) => r.id));
}
