// The batches area's job types (src/jobs/batches.ts): a batch is validated, its lines run in
// chunks, its output written; batches past their window expire.
import { Type } from 'typebox';
import { defineJob, NoPayload } from '../jobs/job-type.ts';

const BatchPayload = Type.Object({ batchId: Type.String({ minLength: 1 }) }, { additionalProperties: false });

export const BATCH_JOBS = {
  /**
   * Reads a batch's input file line by line and checks it (domain/batches/validate.ts); a
   * good file becomes the batch's lines and one batch.line job each, a bad one fails the batch.
   */
  validate: defineJob({
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
  lines: defineJob({
    name: 'batch.lines',
    payload: Type.Object({ batchId: Type.String({ minLength: 1 }), from: Type.Integer({ minimum: 1 }), to: Type.Integer({ minimum: 1 }) }, { additionalProperties: false }),
    concurrency: 2, leaseMs: 60_000,
    retry: { maxAttempts: 6, backoff: { firstMs: 2000, factor: 3, maxMs: 300_000 } },
  }),
  /** Writes a batch's output and error files and ends it (domain/batches/finalize.ts). */
  finalize: defineJob({
    name: 'batch.finalize', payload: BatchPayload, singleton: true, singletonKey: (p) => p.batchId, concurrency: 2, leaseMs: 120_000,
    retry: { maxAttempts: 10, backoff: { firstMs: 1000, factor: 4, maxMs: 600_000 } },
  }),
  /** Expires batches past their completion window: lines not started go to the error file (batch_expired). */
  expire: defineJob({
    name: 'batches.expire', payload: NoPayload, everyMs: 60_000, concurrency: 1, leaseMs: 120_000,
    retry: { maxAttempts: 1, backoff: { firstMs: 60_000, factor: 2, maxMs: 3_600_000 } },
  }),
};
