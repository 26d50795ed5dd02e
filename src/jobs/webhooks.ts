// The handlers of webhook.endpoint, webhook.url (one attempt of a delivery each start;
// domain/webhooks/deliver.ts), webhooks.prune (the delivery log's retention) and
// webhooks.watch (budget.threshold and balance.low; domain/webhooks/watch.ts).
import type { Config } from '../config.ts';
import { attemptDelivery } from '../domain/webhooks/deliver.ts';
import { pruneDeliveryLog } from '../domain/webhooks/deliveries.ts';
import type { Webhooks } from '../domain/webhooks/service.ts';
import { watchThresholds } from '../domain/webhooks/watch.ts';
import { backoffMs, type JobType } from '../domain/jobs/job-type.ts';
import { WEBHOOK_JOBS } from '../domain/webhooks/jobs.ts';
import { handles, type JobHandler } from './handlers.ts';

/** One attempt of a delivery per start, with the retry policy of the job type. */
function deliveryHandler(w: Webhooks, type: JobType): JobHandler<{ deliveryId: string }> {
  const { retry } = type;
  return (job) => attemptDelivery(w, job, { maxAttempts: retry.maxAttempts, backoffMs: (n) => backoffMs(retry, n) });
}

/** The webhooks area's jobs (an entry of src/areas.ts). */
export const webhooksJobs = [
  handles(WEBHOOK_JOBS.endpoint, (s: { webhooks: Webhooks }) => ({ handler: deliveryHandler(s.webhooks, WEBHOOK_JOBS.endpoint) })),
  handles(WEBHOOK_JOBS.url, (s: { webhooks: Webhooks }) => ({ handler: deliveryHandler(s.webhooks, WEBHOOK_JOBS.url) })),
  handles(WEBHOOK_JOBS.prune, (s: { webhooks: Webhooks }) => ({ handler: (job) => pruneDeliveryLog(s.webhooks, job.signal) })),
  handles(WEBHOOK_JOBS.watch, (s: { webhooks: Webhooks; config: Config }) => ({
    handler: async (job) => {
      await watchThresholds(s.webhooks, job.signal);
    },
    everyMs: s.config.webhooks.watchIntervalMs,
  })),
];
