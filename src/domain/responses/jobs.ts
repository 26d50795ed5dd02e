// The stored responses' job type: their expiry (src/jobs/responses-prune.ts).
import { defineJob, NoPayload } from '../jobs/job-type.ts';

export const RESPONSES_JOBS = {
  /** Removes stored Responses API answers past their keep time (GANTRY_RESPONSES_TTL_DAYS; domain/responses). */
  prune: defineJob({
    name: 'responses.prune', payload: NoPayload, everyMs: 600_000, concurrency: 1, leaseMs: 120_000,
    retry: { maxAttempts: 1, backoff: { firstMs: 60_000, factor: 2, maxMs: 3_600_000 } },
  }),
};
