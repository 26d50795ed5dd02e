// The one durable job runner: jobs are rows of `jobs` (store/jobs.ts), taken under a lease
// (an owner and a time) with FOR UPDATE SKIP LOCKED, so any number of runners (replicas) can
// share one database and a job runs on one of them at a time; a lease that runs out (kill -9)
// is taken over. Time is the injected clock: tests advance a ManualClock and call runDue().
// In the background (start()) the runner polls with one indexed query per poll interval.
// Rules in ./README.md.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Ctx } from '../domain/context.ts';
import { inTransaction } from '../domain/changes.ts';
import type { DbOrTx } from '../store/db.ts';
import * as q from '../store/jobs.ts';
import { cleanErrorMessage } from '../lib/log-redaction.ts';
import { silentLogger, type Logger } from '../lib/logger.ts';
import type { JobState } from './states.ts';
import { backoffMs, type JobType, type PayloadOfType } from '../domain/jobs/job-type.ts';
import { insertJobRow, insertJobRows, payloadProblem, type EnqueueOptions, type Enqueued, type JobContext, type JobQueue } from '../domain/jobs/queue.ts';
import type { AreaJob, JobHandler } from './handlers.ts';

export class LeaseLostError extends Error {
  constructor(id: string) {
    super(`job ${id}: the lease was lost (the job was taken over)`);
    this.name = 'LeaseLostError';
  }
}

export interface RunnerOptions {
  /** the store, clock and change channel; the runner is the context's job queue (`ctx.jobs`) */
  ctx: Omit<Ctx, 'jobs'>;
  log?: Logger;
  /** how often the background loop looks for due jobs when idle */
  pollMs?: number;
  /**
   * The embedded store: one process owns the data directory, so a job found running when the
   * loop starts was left by a process that died; take it over at once instead of waiting
   * for its lease to run out. Never with a shared PostgreSQL.
   */
  expireLeasesAtStart?: boolean;
}

interface Registered {
  type: JobType;
  // biome-ignore lint/suspicious/noExplicitAny: handlers of every payload type share the registry; each is typed where registered
  handler: JobHandler<any>;
  everyMs: number | undefined;
}

interface Held {
  lease: q.Lease;
  leaseMs: number;
  abort: AbortController;
}

const STOPPING = 'stopping';
const LEASE_LOST = 'lease lost';
const MAX_ERROR_CHARS = 2000;

function errorText(err: unknown): string {
  const text = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  return cleanErrorMessage(text).slice(0, MAX_ERROR_CHARS);
}

/** A job as the operator sees it (GET /admin/v1/jobs). */
export interface JobView {
  id: string; name: string; state: string; payload: unknown; attempts: number; maxAttempts: number | null;
  singletonKey: string | null; leaseOwner: string | null; lastError: string | null;
  dueAtMs: number; createdAtMs: number; updatedAtMs: number; finishedAtMs: number | null;
}

/** A row as the operator reads it; `type`: the row's registered type, undefined for a name this process runs none of. */
function jobView(r: q.JobRow, type: JobType | undefined): JobView {
  return {
    id: r.id, name: r.name, state: r.state, payload: r.payload, attempts: r.attempts,
    maxAttempts: type && type.everyMs === undefined ? type.retry.maxAttempts : null,
    singletonKey: r.singletonKey, leaseOwner: r.leaseOwner, lastError: r.lastError,
    dueAtMs: r.dueAtMs, createdAtMs: r.createdAtMs, updatedAtMs: r.updatedAtMs, finishedAtMs: r.finishedAtMs,
  };
}

export class JobRunner implements JobQueue {
  /** who holds the leases this runner takes (host, pid and a random part) */
  readonly owner = `${hostname()}/${process.pid}/${randomBytes(4).toString('hex')}`;
  private readonly ctx: Ctx;
  private readonly log: Logger;
  private readonly pollMs: number;
  private readonly expireLeasesAtStart: boolean;
  private readonly types = new Map<string, Registered>();
  private readonly inflight = new Map<string, number>();
  private readonly held = new Map<string, Held>();
  private readonly running = new Set<Promise<void>>();
  private readonly passes = new Set<Promise<void>>();
  /** recurring types whose row may not exist yet */
  private readonly unseeded = new Set<string>();
  private loop: Promise<void> | undefined;
  private stopping = false;
  /** the last poll filled every free slot of some type: poll again as soon as one frees up */
  private backlog = false;
  /** the earliest due time this process set (a recurring job's next run, a retry) */
  private soonestDueMs = Infinity;
  private woken = false;
  private wakeUp: (() => void) | undefined;

  constructor(opts: RunnerOptions) {
    this.ctx = { ...opts.ctx, jobs: this };
    this.log = opts.log ?? silentLogger;
    this.pollMs = opts.pollMs ?? 500;
    this.expireLeasesAtStart = opts.expireLeasesAtStart ?? false;
  }

  /**
   * Run jobs of `type` in this process. A recurring type's `everyMs` and a type's
   * `concurrency` may be overridden (configuration: GANTRY_BATCH_CONCURRENCY).
   */
  register<T extends JobType>(type: T, handler: JobHandler<PayloadOfType<T>>, opts: { everyMs?: number | undefined; concurrency?: number | undefined } = {}): void {
    if (this.types.has(type.name)) throw new Error(`job type ${type.name} is registered twice`);
    const everyMs = opts.everyMs ?? type.everyMs;
    this.types.set(type.name, { type: opts.concurrency ? { ...type, concurrency: opts.concurrency } : type, handler, everyMs });
    if (everyMs !== undefined) this.unseeded.add(type.name);
  }

  /** Run an area's job in this process, its handler made from the part of the service graph `s` it uses (src/areas.ts). */
  handle<S>(job: AreaJob<NoInfer<S>>, s: S): void {
    const r = job.make(s);
    this.register(job.type, r.handler as JobHandler<unknown>, r); // its payload is its type's: `handles` checked it
  }

  /** The names of the job types this process runs. */
  registered(): string[] {
    return [...this.types.keys()];
  }

  /**
   * Jobs newest first, keyset-paged: `next` is the id to pass as `beforeId` for the next page
   * (null on the last). `maxAttempts` is the type's limit; null for a recurring job or a
   * name this process runs none of.
   */
  async list(f: { state?: JobState | undefined; name?: string | undefined; beforeId?: string | undefined; limit: number }): Promise<{ jobs: JobView[]; next: string | null }> {
    // One more than the page: whether a next page exists without counting.
    const rows = await q.listJobs(this.ctx.db, { state: f.state, name: f.name, beforeId: f.beforeId, limit: f.limit + 1 });
    const page = rows.slice(0, f.limit);
    return { jobs: page.map((r) => jobView(r, this.types.get(r.name)?.type)), next: rows.length > f.limit ? page[page.length - 1]!.id : null };
  }

  /**
   * Queue a job of `type` (the port of domain/jobs/queue.ts); a singleton already queued or
   * running answers its id with `created: false`. Wakes the loop for a type this process runs.
   */
  async enqueue<T extends JobType>(type: T, payload: PayloadOfType<T>, opts: EnqueueOptions = {}): Promise<Enqueued> {
    const now = this.ctx.clock.nowMs();
    const recurring = type.everyMs !== undefined || this.types.get(type.name)?.everyMs !== undefined;
    const r = await insertJobRow(opts.tx ?? this.ctx.db, now, type, payload, { ...opts, recurring });
    if ((r.created || opts.restartQueued) && this.types.has(type.name)) {
      if (opts.delayMs) this.noteDue(now + opts.delayMs);
      else this.wake();
    }
    return r;
  }

  /**
   * Queue many jobs of a type that is neither a singleton nor recurring (a batch's lines) in
   * one statement per thousand, inside `opts.tx` when given.
   */
  async enqueueMany<T extends JobType>(type: T, payloads: PayloadOfType<T>[], opts: Omit<EnqueueOptions, 'restartQueued'> = {}): Promise<void> {
    await insertJobRows(opts.tx ?? this.ctx.db, this.ctx.clock.nowMs(), type, payloads, opts.delayMs);
    if (this.types.has(type.name)) this.wake();
  }

  /**
   * Run every job that is due now in this call, and the jobs those make due, until none is
   * (bounded). Tests call it after advancing the ManualClock. Resolves to how many ran.
   */
  runDue(opts: { names?: string[] } = {}): Promise<number> {
    return this.pass(async () => {
      await this.seed();
      let ran = 0;
      for (let round = 0; round < 100 && !this.stopping; round++) {
        const rows = await this.claim(opts.names);
        if (!rows.length) break;
        await Promise.all(rows.map((r) => this.track(r)));
        ran += rows.length;
      }
      return ran;
    });
  }

  /**
   * Run the queued jobs of `name` now, due or not (a recurring job: the reconciler pass a
   * test asks for). One round; resolves to how many ran (0 when another runner holds it).
   */
  runNow(name: string): Promise<number> {
    return this.pass(async () => {
      await this.seed();
      if (this.stopping) return 0;
      const rows = await this.claim([name], true);
      await Promise.all(rows.map((r) => this.track(r)));
      return rows.length;
    });
  }

  /** A runDue/runNow call, awaited by stop() with everything it started. */
  private pass<T>(fn: () => Promise<T>): Promise<T> {
    const p = fn();
    const settled = p.then(() => undefined, () => undefined);
    this.passes.add(settled);
    void settled.then(() => this.passes.delete(settled));
    return p;
  }

  /** Extend every lease this runner holds (the background does it every leaseMs/3). */
  async renewLeases(): Promise<void> {
    await Promise.all([...this.held.keys()].map((id) => this.renew(id)));
  }

  /** Poll in the background until stop(). */
  start(): void {
    if (this.loop !== undefined) return;
    this.stopping = false;
    this.loop = this.background();
  }

  /**
   * Stop polling; handlers in flight are told (their signal) and awaited. A job whose
   * handler gives up because of it is queued again without counting the start.
   */
  async stop(): Promise<void> {
    this.stopping = true;
    this.wake();
    await this.loop;
    this.loop = undefined;
    for (const h of this.held.values()) h.abort.abort(STOPPING);
    // A job claimed from now on is queued again without running (work()).
    while (this.running.size || this.passes.size) await Promise.all([...this.running, ...this.passes]);
  }

  private async background(): Promise<void> {
    try {
      await this.seed();
      if (this.expireLeasesAtStart) {
        const n = await q.expireAllLeases(this.ctx.db, this.ctx.clock.nowMs());
        if (n) this.log.warn({ jobs: n }, 'jobs left running by a previous process are taken over');
      }
    } catch (err) {
      this.log.error({ err }, 'job runner: start failed; polling anyway');
    }
    let failures = 0;
    while (!this.stopping) {
      try {
        await this.seed();
        const rows = await this.claim(undefined);
        for (const r of rows) void this.track(r);
        failures = 0;
      } catch (err) {
        // The database is away: say so once in a while, not twice a second.
        if (failures++ % 20 === 0) this.log.error({ err, failures }, 'job runner: poll failed');
      }
      if (this.stopping) break;
      await this.sleep(failures ? Math.min(30_000, this.pollMs * 2 ** Math.min(failures, 10)) : this.delayMs());
    }
  }

  /** How long to sleep: the poll interval, or less when this process knows of an earlier due job. */
  private delayMs(): number {
    const now = this.ctx.clock.nowMs();
    if (this.soonestDueMs <= now) this.soonestDueMs = Infinity;
    return Math.max(0, Math.min(this.pollMs, this.soonestDueMs - now));
  }

  private noteDue(atMs: number): void {
    if (atMs < this.soonestDueMs) {
      this.soonestDueMs = atMs;
      if (atMs - this.ctx.clock.nowMs() < this.pollMs) this.wake(); // re-arm the sleep to the sooner time
    }
  }

  private wake(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  private sleep(ms: number): Promise<void> {
    if (this.woken) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wakeUp = undefined;
        this.woken = false;
        resolve();
      };
      const timer = setTimeout(done, ms);
      timer.unref();
      this.wakeUp = done;
    });
  }

  /** Insert the row of each recurring type registered since the last call (due now if new). */
  private async seed(): Promise<void> {
    for (const name of [...this.unseeded]) {
      const reg = this.types.get(name)!;
      await this.enqueue(reg.type, {} as never);
      this.unseeded.delete(name);
    }
  }

  /** One statement: lease due jobs of every registered type with a free slot in this process. */
  private async claim(names: string[] | undefined, anyTime = false): Promise<q.JobRow[]> {
    const slots: q.ClaimSlot[] = [];
    for (const [name, reg] of this.types) {
      if (names && !names.includes(name)) continue;
      const free = reg.type.concurrency - (this.inflight.get(name) ?? 0);
      if (free > 0) slots.push({ name, n: free, leaseMs: reg.type.leaseMs });
    }
    if (!slots.length) return [];
    const rows = await q.claimDueJobs(this.ctx.db, this.owner, this.ctx.clock.nowMs(), slots, { anyTime });
    // A type that got every slot it asked for may have more due: poll again when a slot frees.
    const got = new Map<string, number>();
    for (const r of rows) got.set(r.name, (got.get(r.name) ?? 0) + 1);
    this.backlog = slots.some((s) => got.get(s.name) === s.n);
    return rows;
  }

  private track(row: q.JobRow): Promise<void> {
    this.inflight.set(row.name, (this.inflight.get(row.name) ?? 0) + 1);
    const p = this.execute(row).finally(() => {
      this.inflight.set(row.name, this.inflight.get(row.name)! - 1);
      this.running.delete(p);
      if (this.backlog) this.wake();
    });
    this.running.add(p);
    return p;
  }

  private async renew(id: string): Promise<void> {
    const h = this.held.get(id);
    if (!h) return;
    const now = this.ctx.clock.nowMs();
    try {
      if (!(await q.renewLease(this.ctx.db, h.lease, now + h.leaseMs, now))) {
        this.log.warn({ jobId: id }, 'job lease lost: another runner took the job over');
        h.abort.abort(LEASE_LOST);
      }
    } catch (err) {
      this.log.warn({ err, jobId: id }, 'job lease not renewed; will try again');
    }
  }

  /** Run one leased job and end its lease. Never throws: a lease left behind runs out and is taken over. */
  private async execute(row: q.JobRow): Promise<void> {
    const reg = this.types.get(row.name)!;
    const { type, everyMs } = reg;
    const lease: q.Lease = { id: row.id, owner: this.owner, attempt: row.attempts };
    const now = () => this.ctx.clock.nowMs();
    const end = async (how: q.LeaseEnd, db: DbOrTx = this.ctx.db) => {
      if (how.state === 'queued') this.noteDue(how.dueAtMs);
      return q.endLease(db, lease, how, now());
    };
    const success = (): q.LeaseEnd => (everyMs !== undefined
      ? { state: 'queued', dueAtMs: now() + everyMs, attempts: 0, error: null }
      : { state: 'completed' });
    try {
      if (everyMs === undefined && row.attempts > type.retry.maxAttempts) {
        // The start before this one was the last, and its lease ran out: its worker died.
        await end({ state: 'failed', error: `no attempt left: ${row.lastError ?? 'the last start did not finish'}` });
        return;
      }
      const problem = payloadProblem(type, row.payload);
      if (problem) {
        await end({ state: 'failed', error: `the stored payload does not match the catalogue: ${problem}` });
        return;
      }
      await this.work(row, reg, lease, end, success);
    } catch (err) {
      this.log.error({ err, jobId: row.id, job: row.name }, 'job runner: could not end a lease; it will run out');
    }
  }

  private async work(row: q.JobRow, reg: Registered, lease: q.Lease, end: (how: q.LeaseEnd, db?: DbOrTx) => Promise<boolean>, success: () => q.LeaseEnd): Promise<void> {
    const { type, everyMs } = reg;
    if (this.stopping) {
      // Claimed while stop() was under way: back in the queue, the start not counted.
      await end({ state: 'queued', dueAtMs: this.ctx.clock.nowMs(), attempts: row.attempts - 1, error: row.lastError });
      return;
    }
    const abort = new AbortController();
    this.held.set(row.id, { lease, leaseMs: type.leaseMs, abort });
    const heartbeat = setInterval(() => void this.renew(row.id), Math.max(10, Math.floor(type.leaseMs / 3)));
    heartbeat.unref();
    let completed = false;
    const job: JobContext<unknown> = {
      id: row.id, attempt: row.attempts, payload: row.payload, signal: abort.signal,
      completeWith: async (fn) => {
        await inTransaction(this.ctx, async (tx) => {
          if (!(await q.lockLease(tx, lease))) throw new LeaseLostError(row.id);
          await fn(tx);
          if (!(await end(success(), tx))) throw new LeaseLostError(row.id);
        });
        completed = true;
      },
    };
    try {
      await reg.handler(job);
      if (!completed && !(await end(success()))) {
        this.log.warn({ jobId: row.id, job: row.name }, 'job finished after its lease was lost; the other runner\'s start counts');
      }
    } catch (err) {
      if (completed) {
        this.log.error({ err, jobId: row.id, job: row.name }, 'job handler failed after completing; kept as completed');
      } else if (err instanceof LeaseLostError || abort.signal.reason === LEASE_LOST) {
        this.log.warn({ jobId: row.id, job: row.name }, 'job gave up: its lease was lost');
      } else if (abort.signal.reason === STOPPING) {
        // Shutting down is not the job's failure: queued again at once, this start not counted.
        await end({ state: 'queued', dueAtMs: this.ctx.clock.nowMs(), attempts: row.attempts - 1, error: row.lastError });
      } else {
        const failures = row.attempts;
        const error = errorText(err);
        this.log.warn({ err, jobId: row.id, job: row.name, attempt: row.attempts }, 'job failed');
        const nowMs = this.ctx.clock.nowMs();
        if (everyMs !== undefined) {
          await end({ state: 'queued', dueAtMs: nowMs + Math.max(everyMs, backoffMs(type.retry, failures)), attempts: failures, error });
        } else if (row.attempts < type.retry.maxAttempts) {
          await end({ state: 'queued', dueAtMs: nowMs + backoffMs(type.retry, failures), attempts: failures, error });
        } else {
          await end({ state: 'failed', error });
        }
      }
    } finally {
      clearInterval(heartbeat);
      this.held.delete(row.id);
    }
  }
}
