// Queries of the serverless runtime: workers (their lifecycle and metering), endpoint rows as
// the reconciler and the router read and move them, and endpoint log lines. The management
// API's queries are in serverless-endpoints.ts.
import { and, asc, eq, inArray, lt, ne, notInArray, sql } from 'drizzle-orm';
import type { DbOrTx } from './db.ts';
import { endpointLogs, endpointMetrics, endpoints, endpointWorkers } from './schema-serverless.ts';

export type EndpointRow = typeof endpoints.$inferSelect;
export type WorkerRow = typeof endpointWorkers.$inferSelect;
export type WorkerInsert = typeof endpointWorkers.$inferInsert;

/** Worker states after which nothing runs and nothing is billed. */
export const FINAL_WORKER_STATES = ['stopped', 'failed', 'exited'] as const;

// ---- endpoints ----
/** Every endpoint, oldest first (the reconciler visits them all each pass). */
export async function listAllEndpoints(db: DbOrTx): Promise<EndpointRow[]> {
  return db.select().from(endpoints).orderBy(asc(endpoints.id));
}
export async function lockEndpoint(db: DbOrTx, id: string): Promise<EndpointRow | undefined> {
  const [row] = await db.select().from(endpoints).where(eq(endpoints.id, id)).for('update');
  return row;
}
export async function findEndpointByAppName(db: DbOrTx, teamId: string, appName: string): Promise<EndpointRow | undefined> {
  const [row] = await db.select().from(endpoints).where(and(eq(endpoints.teamId, teamId), eq(endpoints.appName, appName)));
  return row;
}
export async function findEndpointRow(db: DbOrTx, id: string): Promise<EndpointRow | undefined> {
  const [row] = await db.select().from(endpoints).where(eq(endpoints.id, id));
  return row;
}
export async function updateEndpointRow(db: DbOrTx, id: string, patch: Partial<typeof endpoints.$inferInsert>): Promise<void> {
  await db.update(endpoints).set(patch).where(eq(endpoints.id, id));
}
/** The endpoint is gone: its row, its workers' rows, its log and its metrics. */
export async function deleteEndpointRows(db: DbOrTx, id: string): Promise<void> {
  await db.delete(endpointWorkers).where(eq(endpointWorkers.endpointId, id));
  await db.delete(endpointLogs).where(eq(endpointLogs.endpointId, id));
  await db.delete(endpointMetrics).where(eq(endpointMetrics.endpointId, id));
  await db.delete(endpoints).where(eq(endpoints.id, id));
}

// ---- workers ----
export async function insertWorker(db: DbOrTx, row: WorkerInsert): Promise<void> {
  await db.insert(endpointWorkers).values(row);
}
export async function lockWorker(db: DbOrTx, id: string): Promise<WorkerRow | undefined> {
  const [row] = await db.select().from(endpointWorkers).where(eq(endpointWorkers.id, id)).for('update');
  return row;
}
export async function updateWorker(db: DbOrTx, id: string, patch: Partial<WorkerInsert>): Promise<void> {
  await db.update(endpointWorkers).set(patch).where(eq(endpointWorkers.id, id));
}
/** Workers that run or may still run, oldest first. */
export async function listLiveWorkers(db: DbOrTx, endpointId: string): Promise<WorkerRow[]> {
  return db.select().from(endpointWorkers)
    .where(and(eq(endpointWorkers.endpointId, endpointId), notInArray(endpointWorkers.state, [...FINAL_WORKER_STATES])))
    .orderBy(asc(endpointWorkers.id));
}
/** The most recent ended workers (newest first): how the last ones ended. */
export async function listEndedWorkers(db: DbOrTx, endpointId: string, limit: number): Promise<WorkerRow[]> {
  return db.select().from(endpointWorkers)
    .where(and(eq(endpointWorkers.endpointId, endpointId), inArray(endpointWorkers.state, [...FINAL_WORKER_STATES])))
    .orderBy(sql`${endpointWorkers.id} desc`).limit(limit);
}
/** Workers that take traffic: running, healthy, not draining, with an address. */
export async function listRoutableWorkers(db: DbOrTx, endpointId: string): Promise<WorkerRow[]> {
  return db.select().from(endpointWorkers).where(and(
    eq(endpointWorkers.endpointId, endpointId), eq(endpointWorkers.state, 'running'), eq(endpointWorkers.healthy, true),
    eq(endpointWorkers.draining, false), ne(endpointWorkers.address, ''),
  )).orderBy(asc(endpointWorkers.id));
}
/** Ended workers older than `beforeMs` are forgotten (their log lines too). */
export async function pruneEndedWorkers(db: DbOrTx, beforeMs: number): Promise<void> {
  const old = db.select({ id: endpointWorkers.id }).from(endpointWorkers)
    .where(and(inArray(endpointWorkers.state, [...FINAL_WORKER_STATES]), lt(endpointWorkers.stateSinceMs, beforeMs)));
  await db.delete(endpointLogs).where(inArray(endpointLogs.workerId, old));
  await db.delete(endpointWorkers).where(and(inArray(endpointWorkers.state, [...FINAL_WORKER_STATES]), lt(endpointWorkers.stateSinceMs, beforeMs)));
}

// ---- log ----
export async function appendLog(db: DbOrTx, lines: { endpointId: string; workerId: string | null; atMs: number; line: string }[]): Promise<void> {
  if (lines.length) await db.insert(endpointLogs).values(lines);
}
