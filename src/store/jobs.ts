// Queries of durable jobs (src/jobs/runner.ts; rules in src/jobs/README.md). Every change to
// a job a worker holds is fenced by (lease owner, attempt): a worker whose lease ran out and
// was taken over changes nothing.
import { and, desc, eq, inArray, lt, sql, type SQL } from 'drizzle-orm';
import type { DbOrTx } from './db.ts';
import { jobs } from './schema-jobs.ts';


export type JobRow = typeof jobs.$inferSelect;

export interface NewJob {
  id: string;
  name: string;
  payload: unknown;
  dueAtMs: number;
  singletonKey: string | null;
  nowMs: number;
}

/**
 * Insert a queued job. A singleton whose key is already queued or running is not inserted:
 * the answer is the existing job's id with `created: false`.
 */
export async function insertJob(db: DbOrTx, j: NewJob): Promise<{ id: string; created: boolean }> {
  // bounded: the other job would have to end between each conflict and the read after it
  for (let i = 0; ; i++) {
    const inserted = await db.insert(jobs).values({
      id: j.id, name: j.name, payload: j.payload, state: 'queued', dueAtMs: j.dueAtMs, singletonKey: j.singletonKey,
      createdAtMs: j.nowMs, updatedAtMs: j.nowMs,
    }).onConflictDoNothing({
      target: [jobs.name, jobs.singletonKey],
      where: sql`singleton_key is not null and state in ('queued', 'running')`,
    }).returning({ id: jobs.id });
    if (inserted[0]) return { id: inserted[0].id, created: true };
    const [existing] = await db.select({ id: jobs.id }).from(jobs).where(and(
      eq(jobs.name, j.name), eq(jobs.singletonKey, j.singletonKey ?? ''), inArray(jobs.state, ['queued', 'running']),
    ));
    if (existing) return { id: existing.id, created: false };
    // The job holding the key ended in between: the key is free, insert again.
    if (i >= 3) throw new Error(`singleton ${j.name}/${j.singletonKey}: the key kept changing hands; try again`);
  }
}

/** Insert many queued jobs of one name that are not singletons (a batch's lines), one statement per call. */
export async function insertJobsBulk(db: DbOrTx, name: string, items: { id: string; payload: unknown }[], dueAtMs: number, nowMs: number): Promise<void> {
  if (!items.length) return;
  await db.execute(sql`
    insert into jobs (id, name, payload, state, due_at_ms, attempts, created_at_ms, updated_at_ms)
    select id, ${name}, payload::jsonb, 'queued', ${dueAtMs}::bigint, 0, ${nowMs}::bigint, ${nowMs}::bigint
      from unnest(${sql.param(items.map((i) => i.id))}::text[], ${sql.param(items.map((i) => JSON.stringify(i.payload)))}::text[]) as u(id, payload)`);
}

export interface ClaimSlot {
  name: string;
  /** how many jobs of this name to take at most */
  n: number;
  leaseMs: number;
}

const num = (v: unknown): number => (typeof v === 'number' ? v : Number(v));
const numOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : num(v));

/**
 * Lease up to `slot.n` due jobs of each name: queued ones whose time has come and running
 * ones whose lease ran out (their worker died). One statement: one range scan of the
 * `jobs_due` index per name, rows another worker is claiming right now skipped.
 */
export async function claimDueJobs(db: DbOrTx, owner: string, nowMs: number, slots: ClaimSlot[], opts: { anyTime?: boolean } = {}): Promise<JobRow[]> {
  if (!slots.length) return [];
  // anyTime: queued jobs too whatever their due time (a recurring job run on demand). A
  // separate condition, so that the usual one stays a range in the index.
  const due = opts.anyTime ? sql`(jobs.due_at_ms <= ${nowMs} or jobs.state = 'queued')` : sql`jobs.due_at_ms <= ${nowMs}`;
  // One name (a test's pass, a runner with one type free) plans in half the time without the recordset.
  const one = slots.length === 1 ? slots[0]! : undefined;
  const picked = one
    ? sql`(select id, ${one.leaseMs}::bigint as lease from jobs
        where jobs.name = ${one.name} and jobs.state in ('queued', 'running') and ${due}
        order by jobs.due_at_ms limit ${one.n}
        for update skip locked)`
    : sql`(select c.id, s.lease
        from jsonb_to_recordset(${JSON.stringify(slots.map((s) => ({ name: s.name, n: s.n, lease: s.leaseMs })))}::jsonb)
          as s(name text, n int, lease bigint)
        cross join lateral (
          select id from jobs
          where jobs.name = s.name and jobs.state in ('queued', 'running') and ${due}
          order by jobs.due_at_ms limit s.n
          for update skip locked
        ) c)`;
  const res = await db.execute(sql`
    update jobs j set
      state = 'running', lease_owner = ${owner}, due_at_ms = ${nowMs}::bigint + picked.lease,
      attempts = j.attempts + 1, updated_at_ms = ${nowMs},
      last_error = case when j.state = 'running' then 'the lease of ' || coalesce(j.lease_owner, '?') || ' ran out' else j.last_error end
    from ${picked} picked
    where j.id = picked.id
    returning j.id, j.name, j.payload, j.state, j.due_at_ms, j.lease_owner, j.attempts, j.singleton_key, j.last_error,
      j.created_at_ms, j.updated_at_ms, j.finished_at_ms`) as unknown as { rows: Record<string, unknown>[] };
  return res.rows.map((r) => ({
    id: String(r.id), name: String(r.name), payload: r.payload, state: String(r.state), dueAtMs: num(r.due_at_ms),
    leaseOwner: r.lease_owner as string | null, attempts: num(r.attempts), singletonKey: r.singleton_key as string | null,
    lastError: r.last_error as string | null, createdAtMs: num(r.created_at_ms), updatedAtMs: num(r.updated_at_ms),
    finishedAtMs: numOrNull(r.finished_at_ms),
  }));
}

/** The lease a worker holds: the job, who holds it, and which start it is. */
export interface Lease {
  id: string;
  owner: string;
  attempt: number;
}

function held(l: Lease): SQL {
  return and(eq(jobs.id, l.id), eq(jobs.leaseOwner, l.owner), eq(jobs.attempts, l.attempt), eq(jobs.state, 'running'))!;
}

/** Lock the job if this lease still holds it (for a completion that commits with the handler's writes). */
export async function lockLease(db: DbOrTx, l: Lease): Promise<boolean> {
  const rows = await db.select({ id: jobs.id }).from(jobs).where(held(l)).for('update');
  return rows.length === 1;
}

/** Extend a lease still held; false when it was lost. */
export async function renewLease(db: DbOrTx, l: Lease, untilMs: number, nowMs: number): Promise<boolean> {
  const rows = await db.update(jobs).set({ dueAtMs: untilMs, updatedAtMs: nowMs }).where(held(l)).returning({ id: jobs.id });
  return rows.length === 1;
}

export type LeaseEnd =
  /** done for good */
  | { state: 'completed' }
  /** kept as failed with its error */
  | { state: 'failed'; error: string }
  /** queued again at `dueAtMs`; `attempts` what the row keeps (a recurring job's failures in a row) */
  | { state: 'queued'; dueAtMs: number; attempts: number; error: string | null };

/** End a lease still held; false when it was lost (another worker took the job over). */
export async function endLease(db: DbOrTx, l: Lease, end: LeaseEnd, nowMs: number): Promise<boolean> {
  const set: Partial<typeof jobs.$inferInsert> = end.state === 'queued'
    ? { state: 'queued', dueAtMs: end.dueAtMs, attempts: end.attempts, lastError: end.error, updatedAtMs: nowMs }
    : end.state === 'failed' ? { state: 'failed', lastError: end.error, finishedAtMs: nowMs, updatedAtMs: nowMs }
    // a completed job keeps the error of an earlier start: why it took more than one
    : { state: 'completed', finishedAtMs: nowMs, updatedAtMs: nowMs };
  const rows = await db.update(jobs).set(set).where(held(l)).returning({ id: jobs.id });
  return rows.length === 1;
}

/**
 * Let every running lease run out now. Only for the embedded store at start: one process
 * owns its data directory, so a job still running there belongs to a process that died.
 */
export async function expireAllLeases(db: DbOrTx, nowMs: number): Promise<number> {
  const rows = await db.update(jobs).set({ dueAtMs: nowMs })
    .where(and(eq(jobs.state, 'running'), sql`${jobs.dueAtMs} > ${nowMs}`)).returning({ id: jobs.id });
  return rows.length;
}

/**
 * A queued job starts afresh now: due at once, its failed starts forgotten (a manual retry
 * of work whose job is still waiting for its backoff). False when it is not queued.
 */
export async function restartQueuedJob(db: DbOrTx, id: string, nowMs: number): Promise<boolean> {
  const rows = await db.update(jobs).set({ dueAtMs: nowMs, attempts: 0, updatedAtMs: nowMs })
    .where(and(eq(jobs.id, id), eq(jobs.state, 'queued'))).returning({ id: jobs.id });
  return rows.length > 0;
}

/** Delete up to `limit` jobs that ended in `state` before `beforeMs`; how many went. */
export async function deleteFinishedJobs(db: DbOrTx, state: 'completed' | 'failed', beforeMs: number, limit: number): Promise<number> {
  const ids = db.select({ id: jobs.id }).from(jobs)
    .where(and(eq(jobs.state, state), lt(jobs.finishedAtMs, beforeMs))).limit(limit);
  const rows = await db.delete(jobs).where(inArray(jobs.id, ids)).returning({ id: jobs.id });
  return rows.length;
}

export async function findJob(db: DbOrTx, id: string): Promise<JobRow | undefined> {
  const [row] = await db.select().from(jobs).where(eq(jobs.id, id));
  return row;
}

export interface JobFilter {
  /** one of JOB_STATES (src/jobs/states.ts) */
  state?: string | undefined;
  name?: string | undefined;
  /** ids sort by creation time: the page starts after (older than) this id */
  beforeId?: string | undefined;
  limit: number;
}

/** Newest first, keyset-paged by id (the `jobs_state` index when filtered by state). */
export async function listJobs(db: DbOrTx, f: JobFilter): Promise<JobRow[]> {
  const conds: SQL[] = [];
  if (f.state) conds.push(eq(jobs.state, f.state));
  if (f.name) conds.push(eq(jobs.name, f.name));
  if (f.beforeId) conds.push(lt(jobs.id, f.beforeId));
  return db.select().from(jobs).where(conds.length ? and(...conds) : undefined).orderBy(desc(jobs.id)).limit(f.limit);
}

/** Jobs per name and state (tests and the bench; not a hot path). */
export async function countJobs(db: DbOrTx, name?: string): Promise<{ name: string; state: string; n: number }[]> {
  return db.select({ name: jobs.name, state: jobs.state, n: sql<number>`count(*)::int` }).from(jobs)
    .where(name ? eq(jobs.name, name) : undefined).groupBy(jobs.name, jobs.state);
}
