// Queries of instance logs (instance_logs): appending, reading a tail or what came after a
// line, where reading the workload's output goes on from, and the bounds on what is kept.
import { and, asc, desc, eq, gt, inArray, lt, lte, max, sql } from 'drizzle-orm';
import type { DbOrTx } from './db.ts';
import { instanceLogs, instances } from './schema-compute.ts';

export type InstanceLogRow = typeof instanceLogs.$inferSelect;
export type InstanceLogInsert = typeof instanceLogs.$inferInsert;

export async function appendInstanceLog(db: DbOrTx, rows: InstanceLogInsert[]): Promise<void> {
  if (rows.length) await db.insert(instanceLogs).values(rows);
}

/** The last `tail` lines after `afterSeq`, oldest first. */
export async function instanceLogTail(db: DbOrTx, instanceId: string, tail: number, afterSeq: number): Promise<InstanceLogRow[]> {
  if (tail <= 0) return [];
  const rows = await db.select().from(instanceLogs).where(and(eq(instanceLogs.instanceId, instanceId), gt(instanceLogs.seq, afterSeq)))
    .orderBy(desc(instanceLogs.seq)).limit(tail);
  return rows.reverse();
}

/** Lines after `afterSeq`, oldest first, at most `limit`. */
export async function instanceLogsAfter(db: DbOrTx, instanceId: string, afterSeq: number, limit: number): Promise<InstanceLogRow[]> {
  return db.select().from(instanceLogs).where(and(eq(instanceLogs.instanceId, instanceId), gt(instanceLogs.seq, afterSeq)))
    .orderBy(asc(instanceLogs.seq)).limit(limit);
}

/** When the newest stored line of the workload's output was written (0: none yet). */
export async function lastWorkloadLineMs(db: DbOrTx, instanceId: string): Promise<number> {
  const [row] = await db.select({ at: max(instanceLogs.atMs) }).from(instanceLogs)
    .where(and(eq(instanceLogs.instanceId, instanceId), eq(instanceLogs.source, 'workload')));
  return Number(row?.at ?? 0);
}

/** Keep an instance's newest `keep` lines; older ones go. */
export async function trimInstanceLog(db: DbOrTx, instanceId: string, keep: number): Promise<void> {
  const [edge] = await db.select({ seq: instanceLogs.seq }).from(instanceLogs).where(eq(instanceLogs.instanceId, instanceId))
    .orderBy(desc(instanceLogs.seq)).offset(keep).limit(1);
  if (edge) await db.delete(instanceLogs).where(and(eq(instanceLogs.instanceId, instanceId), lte(instanceLogs.seq, edge.seq)));
}

/** The lines of instances removed before `beforeMs` go. */
export async function pruneRemovedInstanceLogs(db: DbOrTx, beforeMs: number): Promise<void> {
  const gone = db.select({ id: instances.id }).from(instances).where(and(eq(instances.status, 'removed'), lt(instances.statusSinceMs, beforeMs)));
  await db.delete(instanceLogs).where(inArray(instanceLogs.instanceId, gone));
}

/** How many lines an instance has (tests, the operator). */
export async function countInstanceLog(db: DbOrTx, instanceId: string): Promise<number> {
  const [row] = await db.select({ n: sql<number>`count(*)::int` }).from(instanceLogs).where(eq(instanceLogs.instanceId, instanceId));
  return row?.n ?? 0;
}
