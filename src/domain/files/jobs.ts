// The files area's job type: the expiry sweep (src/jobs/files-expiry.ts).
import { defineJob, NoPayload } from '../jobs/job-type.ts';

export const FILES_JOBS = {
  /**
   * Removes files past their expiry (15 days), files being deleted whose bytes are still
   * there (the blob store was away), and uploads whose process died (domain/files).
   */
  expire: defineJob({
    name: 'files.expire', payload: NoPayload, everyMs: 60_000, concurrency: 1, leaseMs: 120_000,
    retry: { maxAttempts: 1, backoff: { firstMs: 60_000, factor: 2, maxMs: 3_600_000 } },
  }),
};
