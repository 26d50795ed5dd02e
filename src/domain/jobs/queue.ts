// The job queue as the domain sees it: `ctx.jobs.enqueue(type, payload, { tx })` queues a job
// of a type an area defines (`domain/<area>/jobs.ts`, job-type.ts) inside the caller's
// transaction, so the job exists if and only if that commits. The domain never sees the runner (src/jobs/runner.ts): in a serving
// process `ctx.jobs` is the runner, which also wakes its loop for a job it runs; a standalone
// context (standaloneCtx: seeding, the CLI, the database thread) writes the rows only, and a
// runner takes them at its next poll. Both write rows through insertJobRow/insertJobRows
// here: the payload checked against the type's schema, the singleton key from the type.
// A handler sees its job as a JobContext. Rules in src/jobs/README.md.
import { Value } from 'typebox/value';
import type { Clock } from '../../lib/clock.ts';
import { newId } from '../../lib/ids.ts';
import type { DbOrTx, Tx } from '../../store/db.ts';
import * as q from '../../store/jobs.ts';
import type { JobType, PayloadOfType } from './job-type.ts';

export interface EnqueueOptions {
  /** enqueue inside this transaction: the job exists if and only if the transaction commits */
  tx?: DbOrTx;
  /** start no earlier than this long from now */
  delayMs?: number;
  /**
   * A singleton whose job is already queued (waiting for a retry's backoff) starts afresh
   * instead: due now, its failed starts forgotten (a manual retry). A running one is left
   * alone. Not with `delayMs`.
   */
  restartQueued?: boolean;
}

export interface Enqueued {
  id: string;
  /** false: a singleton's job was queued or running already, `id` is its */
  created: boolean;
}

/** The port the domain enqueues through (`ctx.jobs`). */
export interface JobQueue {
  /** Queue a job of `type`; a singleton already queued or running answers its id with `created: false`. */
  enqueue<T extends JobType>(type: T, payload: PayloadOfType<T>, opts?: EnqueueOptions): Promise<Enqueued>;
  /**
   * Queue many jobs of a type that is neither a singleton nor recurring (a batch's lines) in
   * one statement per thousand, inside `opts.tx` when given.
   */
  enqueueMany<T extends JobType>(type: T, payloads: PayloadOfType<T>[], opts?: Omit<EnqueueOptions, 'restartQueued'>): Promise<void>;
}

/** A job as its handler sees it (the runner makes one for each start). */
export interface JobContext<P> {
  id: string;
  /** which start this is: 1 for the first */
  attempt: number;
  payload: P;
  /**
   * Aborted when this start must give up: its lease was lost (another runner took the job
   * over) or the runner is stopping (the job is queued again, the start not counted).
   */
  signal: AbortSignal;
  /**
   * Complete the job with `fn`'s writes in the same transaction, fenced by the lease: both
   * commit, or neither (LeaseLostError when another runner took the job over). What must
   * happen once (a result recorded, money moved) goes here; the rest of a handler may run
   * again after a crash.
   */
  completeWith(fn: (tx: Tx) => Promise<void>): Promise<void>;
}

/** Why `payload` does not match the type's schema; undefined when it does. */
export function payloadProblem(type: JobType, payload: unknown): string | undefined {
  if (Value.Check(type.payload, payload)) return undefined;
  const first = [...Value.Errors(type.payload, payload)][0];
  return first ? `${first.instancePath || '/'} ${first.message}` : 'does not match';
}

/**
 * Write one job's row (the one way a job is queued): the payload checked, the singleton key
 * from the type (a recurring job is the singleton of its name). `recurring` says whether
 * the type recurs where it runs (a runner may override a type's everyMs).
 */
export async function insertJobRow(db: DbOrTx, nowMs: number, type: JobType, payload: unknown, opts: EnqueueOptions & { recurring: boolean }): Promise<Enqueued> {
  const problem = payloadProblem(type, payload);
  if (problem) throw new Error(`job ${type.name}: payload ${problem}`);
  if (opts.restartQueued && opts.delayMs) throw new Error(`job ${type.name}: restartQueued starts the job now; no delayMs`);
  const singletonKey = opts.recurring ? type.name : type.singleton ? (type.singletonKey?.(payload) ?? type.name) : null;
  const r = await q.insertJob(db, {
    id: newId('job', nowMs), name: type.name, payload, dueAtMs: nowMs + (opts.delayMs ?? 0), singletonKey, nowMs,
  });
  if (!r.created && opts.restartQueued) await q.restartQueuedJob(db, r.id, nowMs);
  return r;
}

/** Write many plain jobs' rows (neither singleton nor recurring), a statement per thousand. */
export async function insertJobRows(db: DbOrTx, nowMs: number, type: JobType, payloads: unknown[], delayMs = 0): Promise<void> {
  if (type.singleton || type.everyMs !== undefined) throw new Error(`job ${type.name}: enqueueMany is for plain jobs`);
  for (let i = 0; i < payloads.length; i += 1000) {
    const items = payloads.slice(i, i + 1000).map((payload) => {
      const problem = payloadProblem(type, payload);
      if (problem) throw new Error(`job ${type.name}: payload ${problem}`);
      return { id: newId('job', nowMs), payload };
    });
    await q.insertJobsBulk(db, type.name, items, nowMs + delayMs, nowMs);
  }
}

/**
 * A queue that writes rows and runs nothing (standaloneCtx): whichever runner shares the
 * store takes them at its next poll.
 */
export function tableJobQueue(db: DbOrTx, clock: Clock): JobQueue {
  return {
    enqueue: (type, payload, opts = {}) => insertJobRow(opts.tx ?? db, clock.nowMs(), type, payload, { ...opts, recurring: type.everyMs !== undefined }),
    enqueueMany: (type, payloads, opts = {}) => insertJobRows(opts.tx ?? db, clock.nowMs(), type, payloads, opts.delayMs),
  };
}
