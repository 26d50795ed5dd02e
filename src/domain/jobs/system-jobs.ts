// The job runner's own upkeep (src/jobs/prune.ts; the system area's entry of src/areas.ts):
// ended jobs are kept for operators to read (GET /admin/v1/jobs), then deleted.
import { defineJob, NoPayload } from './job-type.ts';

export const SYSTEM_JOBS = {
  /** Deletes jobs that ended long enough ago (completed after a day, failed after 30 days). */
  prune: defineJob({
    name: 'jobs.prune', payload: NoPayload, everyMs: 3_600_000, concurrency: 1, leaseMs: 60_000,
    retry: { maxAttempts: 1, backoff: { firstMs: 60_000, factor: 2, maxMs: 3_600_000 } },
  }),
};

/** How long ended jobs are kept for operators to read (jobs.prune). */
export const KEEP_COMPLETED_MS = 86_400_000;
export const KEEP_FAILED_MS = 30 * 86_400_000;
