// Queries of batch jobs and their lines (schema-batches.ts). Every change of a line's state
// is conditional on the state it leaves, and moves the batch's counters in the same
// statement, so a line is counted once whatever runs twice.
import { and, asc, desc, eq, gt, inArray, lt, lte, sql } from 'drizzle-orm';
import type { DbOrTx } from './db.ts';
import { batches, batchLines } from './schema-batches.ts';
import { apiKeys, members, teams } from './schema.ts';

export type BatchRow = typeof batches.$inferSelect;
export type NewBatchRow = typeof batches.$inferInsert;
export type BatchLineRow = typeof batchLines.$inferSelect;

/** Statuses in which a batch still has work (the others are final). */
export const OPEN_STATUSES = ['VALIDATING', 'PROGRESS', 'CANCELLING'] as const;

export async function insertBatch(db: DbOrTx, row: NewBatchRow): Promise<void> {
  await db.insert(batches).values(row);
}

export async function findBatch(db: DbOrTx, teamId: string, id: string): Promise<BatchRow | undefined> {
  const [row] = await db.select().from(batches).where(and(eq(batches.id, id), eq(batches.teamId, teamId)));
  return row;
}

export async function findBatchById(db: DbOrTx, id: string): Promise<BatchRow | undefined> {
  const [row] = await db.select().from(batches).where(eq(batches.id, id));
  return row;
}

/** The team's batches newest first, after `afterId` (OpenAI's cursor: the last id of the previous page). */
export async function listBatches(db: DbOrTx, teamId: string, afterId: string | undefined, limit: number): Promise<BatchRow[]> {
  return db.select().from(batches).where(and(eq(batches.teamId, teamId), afterId ? lt(batches.id, afterId) : undefined))
    .orderBy(desc(batches.id)).limit(limit);
}

/** A status change: the version moves with it. Undefined when the batch was not in one of `from`. */
export async function setBatchStatus(db: DbOrTx, id: string, from: readonly string[], set: Partial<NewBatchRow> & { status: string; updatedAtMs: number }): Promise<BatchRow | undefined> {
  const [row] = await db.update(batches).set({ ...set, version: sql`${batches.version} + 1` })
    .where(and(eq(batches.id, id), inArray(batches.status, [...from]))).returning();
  return row;
}

/** Mark the finalizing moment once (a rerun of the finalizer keeps the first). */
export async function markFinalizing(db: DbOrTx, id: string, nowMs: number): Promise<void> {
  await db.update(batches).set({ finalizingAtMs: sql`coalesce(${batches.finalizingAtMs}, ${nowMs})`, updatedAtMs: nowMs }).where(eq(batches.id, id));
}

export interface NewLine {
  line: number;
  customId: string;
  body: unknown;
}

/** The lines of a validated file; a line already stored (a validation run again) is kept as it is. */
export async function insertLines(db: DbOrTx, batchId: string, lines: NewLine[], nowMs: number): Promise<void> {
  if (!lines.length) return;
  await db.execute(sql`
    insert into batch_lines (batch_id, line, custom_id, body, state, updated_at_ms)
    select ${batchId}, line, custom_id, body::jsonb, 'pending', ${nowMs}::bigint
      from unnest(${sql.param(lines.map((l) => l.line))}::int[], ${sql.param(lines.map((l) => l.customId))}::text[],
                  ${sql.param(lines.map((l) => JSON.stringify(l.body)))}::text[]) as u(line, custom_id, body)
    on conflict do nothing`);
}

export interface ClaimedLine {
  line: number;
  customId: string;
  body: Record<string, unknown>;
  /** the batch's: who is billed, which endpoint, and its window */
  teamId: string;
  memberId: string;
  keyId: string;
  role: string;
  endpoint: string;
  expiresAtMs: number;
}

/**
 * Start the lines `from`..`to` of a batch (a chunk, one job): pending lines of a batch in
 * progress within its window, and lines left running by a start that died (they began
 * before any cancel or expiry, and running lines finish). Lines that ended, or whose batch
 * no longer starts lines, are not returned.
 */
export async function claimLines(db: DbOrTx, batchId: string, from: number, to: number, nowMs: number): Promise<ClaimedLine[]> {
  const res = await db.execute(sql`
    update batch_lines l set state = 'running', updated_at_ms = ${nowMs}
      from batches b
     where l.batch_id = ${batchId} and l.line between ${from} and ${to} and b.id = l.batch_id
       and (l.state = 'running' or (l.state = 'pending' and b.status = 'PROGRESS' and b.expires_at_ms > ${nowMs}))
    returning l.line, l.custom_id, l.body, b.team_id, b.member_id, b.key_id, b.role, b.endpoint, b.expires_at_ms`) as unknown as { rows: Record<string, string>[] };
  return res.rows.map((r) => ({
    line: Number(r.line), customId: r.custom_id!, body: r.body as unknown as Record<string, unknown>, teamId: r.team_id!, memberId: r.member_id!,
    keyId: r.key_id!, role: r.role!, endpoint: r.endpoint!, expiresAtMs: Number(r.expires_at_ms),
  })).sort((a, b) => a.line - b.line);
}

/**
 * What decides whether a claimed line may still start: its batch's status and window, and
 * whether the key that created it (its member, its team) may still call models.
 */
export async function batchGate(db: DbOrTx, batchId: string): Promise<{ status: string; expiresAtMs: number; keyId: string; keyStatus: string | null; memberStatus: string; teamStatus: string } | undefined> {
  const [row] = await db.select({
    status: batches.status, expiresAtMs: batches.expiresAtMs, keyId: batches.keyId, keyStatus: apiKeys.status, memberStatus: members.status, teamStatus: teams.status,
  }).from(batches)
    // left: a batch a person's console session created names the session, not a key (keyStatus null)
    .leftJoin(apiKeys, eq(apiKeys.id, batches.keyId)).innerJoin(members, eq(members.id, batches.memberId)).innerJoin(teams, eq(teams.id, batches.teamId))
    .where(eq(batches.id, batchId));
  return row;
}

export const LINE_ENDS = ['succeeded', 'failed', 'expired', 'cancelled'] as const;
export type LineEnd = (typeof LINE_ENDS)[number];

/** The batch after lines ended: whether every line has now ended. */
export interface Counted {
  ended: number;
  total: number;
  status: string;
}

/** The tokens of an answered line (its answer's usage), added to its batch's sums. */
export interface LineTokens {
  input: number;
  cached: number;
  output: number;
  reasoning: number;
}

export interface EndedLine {
  batchId: string;
  line: number;
  state: LineEnd;
  result: unknown;
  tokens?: LineTokens | undefined;
}

/**
 * End running lines with their results, many in one statement (a group commit of lines of
 * any batches); each batch's counters and token sums move in the same statement. A line no
 * longer running (ended by a start that finished first) is left as it is and not counted.
 */
export async function endLines(db: DbOrTx, lines: EndedLine[], nowMs: number): Promise<(Counted & { id: string })[]> {
  if (!lines.length) return [];
  const tokens = (k: keyof LineTokens) => sql.param(lines.map((l) => l.tokens?.[k] ?? 0));
  const res = await db.execute(sql`
    with v as (
      select * from unnest(${sql.param(lines.map((l) => l.batchId))}::text[], ${sql.param(lines.map((l) => l.line))}::int[],
                           ${sql.param(lines.map((l) => l.state))}::text[], ${sql.param(lines.map((l) => JSON.stringify(l.result)))}::text[],
                           ${tokens('input')}::bigint[], ${tokens('cached')}::bigint[], ${tokens('output')}::bigint[], ${tokens('reasoning')}::bigint[])
        as v(batch_id, line, state, result, t_in, t_cached, t_out, t_reasoning)),
    l as (
      update batch_lines b set state = v.state, result = v.result::jsonb, body = null, updated_at_ms = ${nowMs}
        from v where b.batch_id = v.batch_id and b.line = v.line and b.state = 'running'
      returning b.batch_id, v.state, v.t_in, v.t_cached, v.t_out, v.t_reasoning),
    c as (
      select batch_id, count(*)::int as n, (count(*) filter (where state = 'succeeded'))::int as ok,
             (count(*) filter (where state in ('failed', 'expired')))::int as bad,
             sum(t_in)::bigint as t_in, sum(t_cached)::bigint as t_cached, sum(t_out)::bigint as t_out, sum(t_reasoning)::bigint as t_reasoning
        from l group by batch_id)
    update batches set ended = ended + c.n, completed = completed + c.ok, failed = failed + c.bad,
           input_tokens = input_tokens + c.t_in, cached_tokens = cached_tokens + c.t_cached,
           output_tokens = output_tokens + c.t_out, reasoning_tokens = reasoning_tokens + c.t_reasoning, updated_at_ms = ${nowMs}
      from c where batches.id = c.batch_id
    returning batches.id, batches.ended, batches.total, batches.status`) as unknown as { rows: (Counted & { id: string })[] };
  return res.rows;
}

/**
 * End every pending line of a batch at once (cancel: `cancelled`; expiry: `expired`), the
 * counters with them. Lines running keep running and end by themselves.
 */
export async function endPendingLines(db: DbOrTx, batchId: string, state: 'cancelled' | 'expired', nowMs: number): Promise<Counted | undefined> {
  const res = await db.execute(sql`
    with l as (
      update batch_lines set state = ${state}, body = null, updated_at_ms = ${nowMs}
       where batch_id = ${batchId} and state = 'pending'
      returning 1)
    update batches set ended = ended + (select count(*) from l)::int,
           ${state === 'expired' ? sql`failed = failed + (select count(*) from l)::int,` : sql``}
           updated_at_ms = ${nowMs}
     where id = ${batchId}
    returning ended, total, status`) as unknown as { rows: Counted[] };
  return res.rows[0];
}

/** Lines still running (left by starts that died, once a batch is past its window and a grace). */
export async function endRunningLines(db: DbOrTx, batchId: string, nowMs: number): Promise<Counted | undefined> {
  const res = await db.execute(sql`
    with l as (
      update batch_lines set state = 'expired', body = null, updated_at_ms = ${nowMs}
       where batch_id = ${batchId} and state = 'running'
      returning 1)
    update batches set ended = ended + (select count(*) from l)::int, failed = failed + (select count(*) from l)::int, updated_at_ms = ${nowMs}
     where id = ${batchId}
    returning ended, total, status`) as unknown as { rows: Counted[] };
  return res.rows[0];
}

/** The moment a batch's window closed, kept once (its lines not started are expired with it). */
export async function markExpired(db: DbOrTx, id: string, nowMs: number): Promise<void> {
  await db.update(batches).set({ expiredAtMs: sql`coalesce(${batches.expiredAtMs}, ${nowMs})`, updatedAtMs: nowMs }).where(eq(batches.id, id));
}

/** Batches with work left whose window closed at or before `nowMs`. */
export async function openBatchesExpiredBy(db: DbOrTx, nowMs: number, limit: number): Promise<BatchRow[]> {
  return db.select().from(batches).where(and(inArray(batches.status, [...OPEN_STATUSES]), lte(batches.expiresAtMs, nowMs)))
    .orderBy(asc(batches.expiresAtMs)).limit(limit);
}

/** A page of a batch's lines in some states, by line number. */
export async function pageLines(db: DbOrTx, batchId: string, states: readonly string[], afterLine: number, limit: number): Promise<BatchLineRow[]> {
  return db.select().from(batchLines).where(and(eq(batchLines.batchId, batchId), inArray(batchLines.state, [...states]), gt(batchLines.line, afterLine)))
    .orderBy(asc(batchLines.line)).limit(limit);
}

/** How many lines a batch has in each state (tests, and the finalizer's choice of files). */
export async function countLines(db: DbOrTx, batchId: string): Promise<Record<string, number>> {
  const rows = await db.select({ state: batchLines.state, n: sql<number>`count(*)::int` }).from(batchLines)
    .where(eq(batchLines.batchId, batchId)).groupBy(batchLines.state);
  return Object.fromEntries(rows.map((r) => [r.state, Number(r.n)]));
}

/** Remove a batch's lines (a validation that failed or was overtaken by a cancel). */
export async function deleteLines(db: DbOrTx, batchId: string): Promise<void> {
  await db.delete(batchLines).where(eq(batchLines.batchId, batchId));
}

/** The line numbers of a batch's pending lines, in order (one job each). */
export async function lineNumbers(db: DbOrTx, batchId: string): Promise<number[]> {
  const rows = await db.select({ line: batchLines.line }).from(batchLines)
    .where(and(eq(batchLines.batchId, batchId), eq(batchLines.state, 'pending'))).orderBy(asc(batchLines.line));
  return rows.map((r) => r.line);
}
