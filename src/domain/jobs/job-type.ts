// What a durable job type is: its name, its payload (a TypeBox schema: the TypeScript type,
// and the check of a payload read back from the store), retry policy, per-process
// concurrency, lease, and whether it is a singleton or recurring. Each area defines its own
// (`domain/<area>/jobs.ts`, one `defineJob` each: the one place a job's name is written); the
// domain enqueues by them (queue.ts, `ctx.jobs`), the area's entry of src/areas.ts names the
// handler of each (src/jobs), and the catalogue is every area's, derived there. A leaf: it
// imports typebox and nothing of Gantry. Rules in src/jobs/README.md.
import { Type, type Static, type TSchema } from 'typebox';

export interface RetryPolicy {
  /** starts before the job is kept as failed (a start whose lease ran out counts) */
  maxAttempts: number;
  /** the wait after the first failure, times `factor` after each further one, at most `maxMs` */
  backoff: { firstMs: number; factor: number; maxMs: number };
}

export interface JobType<S extends TSchema = TSchema, N extends string = string> {
  name: N;
  payload: S;
  retry: RetryPolicy;
  /** how many jobs of this type one process runs at once */
  concurrency: number;
  /** how long a start holds the job; renewed every leaseMs/3 while the handler runs */
  leaseMs: number;
  /** at most one queued or running job of the type, or per `singletonKey` when given */
  singleton?: boolean;
  /** the singleton's key from the payload (a method: job types with different payloads share one table) */
  singletonKey?(payload: Static<S>): string;
  /**
   * Recurring: one job (a singleton of the type, payload `{}`) that is queued again `everyMs`
   * after each run ends, and never ends itself. A failure does not fail it: the next run is
   * after max(everyMs, the backoff), and `attempts` counts the failures in a row.
   */
  everyMs?: number;
}

export type PayloadOfType<T extends JobType> = Static<T['payload']>;

/** A job type, its payload type and name kept exact. */
export function defineJob<S extends TSchema, const N extends string>(t: JobType<S, N>): JobType<S, N> {
  return t;
}

/** The wait before the next start after `failures` failed starts (1 = the first failure). */
export function backoffMs(retry: RetryPolicy, failures: number): number {
  const { firstMs, factor, maxMs } = retry.backoff;
  return Math.min(maxMs, firstMs * factor ** Math.max(0, failures - 1));
}

/** The payload of a job that takes none (every recurring one). */
export const NoPayload = Type.Object({}, { additionalProperties: false });
