// The PostgreSQL usage journal's statements (table usage_journal, src/gateway/pg-journal-sink.ts).
import { sql } from 'drizzle-orm';
import type { DbOrTx, Tx } from './db.ts';

export interface JournalRow {
  id: string;
  record: string;
}

const rowsOf = (res: unknown) => (res as { rows: Record<string, unknown>[] }).rows;

/**
 * One statement for any number of records (autocommitted: durable when it returns). `records`
 * are JSON objects with `teamId` and `requestId` (encodeUsage). They travel as one JSON array,
 * joined as they are: a text[] parameter made the pg driver escape every quote of every record
 * with two regular expressions (~2 % of the main thread's profile under load; the bench's CPU
 * per request moved by 1–2 µs, within noise). A `json` element's text is its input text, so
 * each row's record is stored byte for byte as given.
 */
export async function appendJournal(db: DbOrTx, records: string[]): Promise<void> {
  await db.execute(sql`
    insert into usage_journal (team_id, request_id, record)
    select e->>'teamId', e->>'requestId', e::text from json_array_elements(${`[${records.join(',')}]`}::json) as e`);
}

/** The newest row that a move would take (null: nothing is waiting). */
export async function journalHead(db: DbOrTx): Promise<string | null> {
  const r = rowsOf(await db.execute(sql`select max(id)::text as id from usage_journal where failed_at is null`))[0];
  return (r?.id as string | null | undefined) ?? null;
}

/**
 * Take up to `limit` rows, oldest first, deleting them in the caller's transaction (which
 * records them: both commit or neither). `skipLocked`: leave rows another mover holds (the
 * background passes); without it, wait for that mover and skip what it took (a barrier).
 */
export async function takeJournal(tx: Tx, opts: { limit: number; upTo?: string | undefined; skipLocked: boolean }): Promise<JournalRow[]> {
  // DELETE … RETURNING comes in the scan's order, not the subquery's; a team's charges must be
  // posted in the order they were answered (which one a running-out voucher still pays depends on it)
  const res = await tx.execute(sql`
    with taken as (
      delete from usage_journal where id in (
        select id from usage_journal
         where failed_at is null
           ${opts.upTo !== undefined ? sql`and id <= ${opts.upTo}::bigint` : sql``}
         order by id limit ${opts.limit}
         for update ${opts.skipLocked ? sql`skip locked` : sql``})
      returning id, record)
    select id::text as id, record from taken order by taken.id`);
  return rowsOf(res).map((r) => ({ id: r.id as string, record: r.record as string }));
}

/**
 * The ledger refused this record alone: keep it out of moves (and barriers) until a start
 * retries it. False when another mover, failing on the same row at the same time, marked it first.
 */
export async function markJournalFailed(db: DbOrTx, id: string, error: string): Promise<boolean> {
  const res = await db.execute(sql`update usage_journal set failed_at = now(), error = ${error.slice(0, 2000)} where id = ${id}::bigint and failed_at is null returning id`);
  return rowsOf(res).length > 0;
}

/** At start: records that failed before are tried again (the cause may be gone). */
export async function retryFailedJournal(db: DbOrTx): Promise<number> {
  return rowsOf(await db.execute(sql`with u as (update usage_journal set failed_at = null, error = null where failed_at is not null returning 1) select count(*)::int as n from u`))[0]!.n as number;
}

/** Which of these requests are in the journal (a commit whose outcome its writer never learned). */
export async function journaledRequestIds(db: DbOrTx, requestIds: string[]): Promise<Set<string>> {
  if (!requestIds.length) return new Set();
  const res = await db.execute(sql`select request_id from usage_journal where request_id = any(${sql.param(requestIds)}::text[])`);
  return new Set(rowsOf(res).map((r) => r.request_id as string));
}
