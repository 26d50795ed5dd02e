// Queries of serverless endpoints for the management API: endpoint rows, read-only reads of
// their workers (for the views) and of their log lines. Workers are written by the
// reconciler (store/serverless-workers.ts), log lines by whoever runs them.
import { and, asc, desc, eq, gt, inArray, isNull, sql, type SQL } from 'drizzle-orm';
import type { DbOrTx } from './db.ts';
import { endpointLogs, endpointWorkers, endpoints } from './schema-serverless.ts';

export type EndpointRow = typeof endpoints.$inferSelect;
export type EndpointInsert = typeof endpoints.$inferInsert;
export type WorkerRow = typeof endpointWorkers.$inferSelect;
export type LogRow = typeof endpointLogs.$inferSelect;

const APP_NAME_INDEX = 'endpoints_team_app_name';

/**
 * Whether `err` is the unique index on (team, appName) refusing a row: two creates (or
 * renames) racing for one name meet there, and exactly one wins.
 */
export function isAppNameTaken(err: unknown): boolean {
  for (let e = err, depth = 0; e && typeof e === 'object' && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const x = e as { code?: unknown; constraint?: unknown; message?: unknown };
    if (x.code === '23505') return x.constraint === APP_NAME_INDEX || (typeof x.message === 'string' && x.message.includes(APP_NAME_INDEX));
  }
  return false;
}

export async function insertEndpoint(db: DbOrTx, row: EndpointInsert): Promise<void> {
  await db.insert(endpoints).values(row);
}
export async function findEndpoint(db: DbOrTx, id: string): Promise<EndpointRow | undefined> {
  const [row] = await db.select().from(endpoints).where(eq(endpoints.id, id));
  return row;
}
export async function lockEndpoint(db: DbOrTx, id: string): Promise<EndpointRow | undefined> {
  const [row] = await db.select().from(endpoints).where(eq(endpoints.id, id)).for('update');
  return row;
}
export async function updateEndpoint(db: DbOrTx, id: string, patch: Partial<EndpointInsert>): Promise<void> {
  await db.update(endpoints).set(patch).where(eq(endpoints.id, id));
}

/** A page of the team's endpoints, newest first (ids are time-sortable), and how many it has. */
export async function listEndpoints(db: DbOrTx, f: { teamId: string; limit: number; offset: number }): Promise<{ rows: EndpointRow[]; total: number }> {
  const where = eq(endpoints.teamId, f.teamId);
  const [count] = await db.select({ n: sql<number>`count(*)::int` }).from(endpoints).where(where);
  // page over ids (the (team_id, id) index) first, then read only the page's rows with their spec
  const page = await db.select({ id: endpoints.id }).from(endpoints).where(where).orderBy(desc(endpoints.id)).limit(f.limit).offset(f.offset);
  if (!page.length) return { rows: [], total: count?.n ?? 0 };
  const rows = await db.select().from(endpoints).where(inArray(endpoints.id, page.map((r) => r.id))).orderBy(desc(endpoints.id));
  return { rows, total: count?.n ?? 0 };
}

/** The workers of these endpoints, oldest first. */
export async function workersOf(db: DbOrTx, endpointIds: string[]): Promise<WorkerRow[]> {
  if (!endpointIds.length) return [];
  return db.select().from(endpointWorkers).where(inArray(endpointWorkers.endpointId, endpointIds))
    .orderBy(asc(endpointWorkers.createdAt), asc(endpointWorkers.id));
}
export async function findWorker(db: DbOrTx, id: string): Promise<WorkerRow | undefined> {
  const [row] = await db.select().from(endpointWorkers).where(eq(endpointWorkers.id, id));
  return row;
}

/** Whose lines: the endpoint's own (workerId null), or one worker's. */
export type LogSource = { endpointId: string } | { workerId: string };

function sourceOf(s: LogSource): SQL {
  return 'workerId' in s ? eq(endpointLogs.workerId, s.workerId) : and(eq(endpointLogs.endpointId, s.endpointId), isNull(endpointLogs.workerId))!;
}

/** The last `tail` lines of a source, oldest first. */
export async function logTail(db: DbOrTx, s: LogSource, tail: number, afterSeq = 0): Promise<LogRow[]> {
  if (tail <= 0) return [];
  const rows = await db.select().from(endpointLogs).where(and(sourceOf(s), gt(endpointLogs.seq, afterSeq)))
    .orderBy(desc(endpointLogs.seq)).limit(tail);
  return rows.reverse();
}

/** Lines after `afterSeq`, oldest first, at most `limit`. */
export async function logsAfter(db: DbOrTx, s: LogSource, afterSeq: number, limit: number): Promise<LogRow[]> {
  return db.select().from(endpointLogs).where(and(sourceOf(s), gt(endpointLogs.seq, afterSeq))).orderBy(asc(endpointLogs.seq)).limit(limit);
}

/** The endpoint a worker's lines belong to, when the worker's row is gone (its lines stay). */
export async function endpointOfWorkerLogs(db: DbOrTx, workerId: string): Promise<string | undefined> {
  const [row] = await db.select({ endpointId: endpointLogs.endpointId }).from(endpointLogs).where(eq(endpointLogs.workerId, workerId)).limit(1);
  return row?.endpointId;
}
