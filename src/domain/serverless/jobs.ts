// The serverless area's job type: the runtime's pass (src/jobs/serverless-reconciler.ts).
import { defineJob, NoPayload } from '../jobs/job-type.ts';

export const SERVERLESS_JOBS = {
  /**
   * One serverless runtime pass over every endpoint (domain/serverless/reconciler.ts):
   * workers through their states, health, worker-second billing, autoscaling. The router
   * asks for a pass at once when requests wait (scale out, scale from zero).
   */
  reconcile: defineJob({
    name: 'serverless.reconcile', payload: NoPayload, everyMs: 1000, concurrency: 1, leaseMs: 30_000,
    retry: { maxAttempts: 1, backoff: { firstMs: 1000, factor: 2, maxMs: 60_000 } },
  }),
};
