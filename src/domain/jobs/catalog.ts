// The job catalogue: every kind of durable job Gantry runs, with its payload (a TypeBox
// schema: the TypeScript type, and the check of a payload read back from the store), retry
// policy, per-process concurrency, lease, and whether it is a singleton or recurring.
// A leaf (it imports typebox and nothing of Gantry): the domain enqueues by these names and
// payload types (queue.ts, `ctx.jobs`), the runner and the handlers live in src/jobs, which
// registers one handler per name (jobs/handlers.ts). Rules in src/jobs/README.md.
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

const NoPayload = Type.Object({}, { additionalProperties: false });

const DeliveryPayload = Type.Object({ deliveryId: Type.String({ minLength: 1 }) }, { additionalProperties: false });

const BatchPayload = Type.Object({ batchId: Type.String({ minLength: 1 }) }, { additionalProperties: false });

export const JOB_NAMES = ['compute.reconcile', 'compute.sample', 'serverless.reconcile', 'jobs.prune', 'files.expire', 'responses.prune', 'batch.validate', 'batch.lines', 'batch.finalize', 'batches.expire', 'webhook.endpoint', 'webhook.url', 'webhooks.prune', 'webhooks.watch', 'media.task', 'media.tasks.sweep'] as const;
export type JobName = (typeof JOB_NAMES)[number];

export const CATALOG = {
  /**
   * One reconciler pass over every due instance (domain/compute/reconciler.ts). The instance
   * row stays the unit of work with its own lease; this job only makes sure a pass runs
   * every GANTRY_RECONCILE_INTERVAL_MS somewhere, one at a time across replicas.
   */
  'compute.reconcile': defineJob({
    name: 'compute.reconcile', payload: NoPayload, everyMs: 1000, concurrency: 1, leaseMs: 30_000,
    retry: { maxAttempts: 1, backoff: { firstMs: 1000, factor: 2, maxMs: 60_000 } },
  }),
  /**
   * The compute driver's readings (domain/compute/gpu-inventory.ts, metrics.ts): the inventory
   * of its cluster from its GPUs, and a usage sample of every running instance; old samples
   * pruned. Recurring: due at once on a new store, and after a restart when its last run was
   * 15 s or more before.
   */
  'compute.sample': defineJob({
    name: 'compute.sample', payload: NoPayload, everyMs: 15_000, concurrency: 1, leaseMs: 60_000,
    retry: { maxAttempts: 1, backoff: { firstMs: 15_000, factor: 2, maxMs: 120_000 } },
  }),
  /**
   * One serverless runtime pass over every endpoint (domain/serverless/reconciler.ts):
   * workers through their states, health, worker-second billing, autoscaling. The router
   * asks for a pass at once when requests wait (scale out, scale from zero).
   */
  'serverless.reconcile': defineJob({
    name: 'serverless.reconcile', payload: NoPayload, everyMs: 1000, concurrency: 1, leaseMs: 30_000,
    retry: { maxAttempts: 1, backoff: { firstMs: 1000, factor: 2, maxMs: 60_000 } },
  }),
  /** Deletes jobs that ended long enough ago (completed after a day, failed after 30 days). */
  'jobs.prune': defineJob({
    name: 'jobs.prune', payload: NoPayload, everyMs: 3_600_000, concurrency: 1, leaseMs: 60_000,
    retry: { maxAttempts: 1, backoff: { firstMs: 60_000, factor: 2, maxMs: 3_600_000 } },
  }),
  /**
   * Removes files past their expiry (15 days), files being deleted whose bytes are still
   * there (the blob store was away), and uploads whose process died (domain/files).
   */
  'files.expire': defineJob({
    name: 'files.expire', payload: NoPayload, everyMs: 60_000, concurrency: 1, leaseMs: 120_000,
    retry: { maxAttempts: 1, backoff: { firstMs: 60_000, factor: 2, maxMs: 3_600_000 } },
  }),
  /** Removes stored Responses API answers past their keep time (GANTRY_RESPONSES_TTL_DAYS; domain/responses). */
  'responses.prune': defineJob({
    name: 'responses.prune', payload: NoPayload, everyMs: 600_000, concurrency: 1, leaseMs: 120_000,
    retry: { maxAttempts: 1, backoff: { firstMs: 60_000, factor: 2, maxMs: 3_600_000 } },
  }),
  /**
   * Reads a batch's input file line by line and checks it (domain/batches/validate.ts); a
   * good file becomes the batch's lines and one batch.line job each, a bad one fails the batch.
   */
  'batch.validate': defineJob({
    name: 'batch.validate', payload: BatchPayload, singleton: true, singletonKey: (p) => p.batchId, concurrency: 2, leaseMs: 120_000,
    retry: { maxAttempts: 5, backoff: { firstMs: 1000, factor: 4, maxMs: 300_000 } },
  }),
  /**
   * A chunk of a batch's lines (`from`..`to`, GANTRY_BATCH_CHUNK_LINES of them) through the
   * model pipeline (jobs/batches.ts): a job per chunk, not per line, so that a line costs the
   * store a fraction of a claim and of a commit. Lines in flight per process are
   * GANTRY_BATCH_CONCURRENCY, whatever the chunks; each line's result is committed as it
   * ends (group commit). An upstream failure that may pass runs the chunk's unfinished lines
   * again after the backoff; the last attempt records them as failed.
   */
  'batch.lines': defineJob({
    name: 'batch.lines',
    payload: Type.Object({ batchId: Type.String({ minLength: 1 }), from: Type.Integer({ minimum: 1 }), to: Type.Integer({ minimum: 1 }) }, { additionalProperties: false }),
    concurrency: 2, leaseMs: 60_000,
    retry: { maxAttempts: 6, backoff: { firstMs: 2000, factor: 3, maxMs: 300_000 } },
  }),
  /** Writes a batch's output and error files and ends it (domain/batches/finalize.ts). */
  'batch.finalize': defineJob({
    name: 'batch.finalize', payload: BatchPayload, singleton: true, singletonKey: (p) => p.batchId, concurrency: 2, leaseMs: 120_000,
    retry: { maxAttempts: 10, backoff: { firstMs: 1000, factor: 4, maxMs: 600_000 } },
  }),
  /** Expires batches past their completion window: lines not started go to the error file (batch_expired). */
  'batches.expire': defineJob({
    name: 'batches.expire', payload: NoPayload, everyMs: 60_000, concurrency: 1, leaseMs: 120_000,
    retry: { maxAttempts: 1, backoff: { firstMs: 60_000, factor: 2, maxMs: 3_600_000 } },
  }),
  /**
   * One delivery to a team webhook endpoint (domain/webhooks/deliver.ts): an attempt per
   * start, exponential backoff (5 s × 3^n) up to 24 h, 16 attempts over about 6.5 days; an
   * endpoint whose attempts all failed for 5 days is disabled on the way. One job at a time
   * per delivery (a manual retry queues the next).
   */
  'webhook.endpoint': defineJob({
    name: 'webhook.endpoint', payload: DeliveryPayload, singleton: true, singletonKey: (p) => p.deliveryId, concurrency: 8, leaseMs: 120_000,
    retry: { maxAttempts: 16, backoff: { firstMs: 5_000, factor: 3, maxMs: 86_400_000 } },
  }),
  /**
   * One delivery to a request's own URL (extra.webhook.url; compat.md): the first attempt and
   * up to 5 retries on a timeout or a non-2xx answer, 10 s × 2^n apart.
   */
  'webhook.url': defineJob({
    name: 'webhook.url', payload: DeliveryPayload, singleton: true, singletonKey: (p) => p.deliveryId, concurrency: 8, leaseMs: 120_000,
    retry: { maxAttempts: 6, backoff: { firstMs: 10_000, factor: 2, maxMs: 300_000 } },
  }),
  /** Deletes ended webhook deliveries 30 days after they were created (the delivery log's retention). */
  'webhooks.prune': defineJob({
    name: 'webhooks.prune', payload: NoPayload, everyMs: 3_600_000, concurrency: 1, leaseMs: 60_000,
    retry: { maxAttempts: 1, backoff: { firstMs: 60_000, factor: 2, maxMs: 3_600_000 } },
  }),
  /**
   * Looks for budget.threshold (80 % and 100 %) and balance.low crossings of teams subscribed
   * to them, each announced once (domain/webhooks/watch.ts); every GANTRY_WEBHOOK_WATCH_INTERVAL_MS.
   */
  'webhooks.watch': defineJob({
    name: 'webhooks.watch', payload: NoPayload, everyMs: 60_000, concurrency: 1, leaseMs: 120_000,
    retry: { maxAttempts: 1, backoff: { firstMs: 60_000, factor: 2, maxMs: 3_600_000 } },
  }),
  /**
   * One async media task (txt2img, txt2speech; jobs/media-tasks.ts): renders its outputs
   * (idempotent: the same blobs again after a crash) and ends the task once, in the
   * transaction that completes the job (charged on success, released on failure). The last
   * attempt, or a refusal that cannot pass, fails the task instead of retrying.
   */
  'media.task': defineJob({
    name: 'media.task', payload: Type.Object({ taskId: Type.String({ minLength: 1 }) }, { additionalProperties: false }),
    singleton: true, singletonKey: (p) => p.taskId, concurrency: 4, leaseMs: 120_000,
    retry: { maxAttempts: 5, backoff: { firstMs: 2000, factor: 4, maxMs: 300_000 } },
  }),
  /**
   * Fails (unbilled, hold released, announced) the tasks whose media.task job the runner
   * failed without the handler ending them: every start's process died (kill -9, lost
   * replicas) until the attempts ran out. Then removes tasks ended more than
   * GANTRY_MEDIA_TASK_TTL_DAYS ago, with their outputs, and team uploads a dying process left
   * unavailable (status 0) for GANTRY_MEDIA_UPLOAD_STALE_HOURS, with their bytes.
   */
  'media.tasks.sweep': defineJob({
    name: 'media.tasks.sweep', payload: NoPayload, everyMs: 60_000, concurrency: 1, leaseMs: 120_000,
    retry: { maxAttempts: 1, backoff: { firstMs: 60_000, factor: 2, maxMs: 3_600_000 } },
  }),
} satisfies { [N in JobName]: JobType & { name: N } };

export type PayloadOf<N extends JobName> = PayloadOfType<(typeof CATALOG)[N]>;

/** How long ended jobs are kept for operators to read (jobs.prune). */
export const KEEP_COMPLETED_MS = 86_400_000;
export const KEEP_FAILED_MS = 30 * 86_400_000;
