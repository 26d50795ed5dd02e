// The handlers of webhook.endpoint, webhook.url (one attempt of a delivery each start;
// domain/webhooks/deliver.ts), webhooks.prune (the delivery log's retention) and
// webhooks.watch (budget.threshold and balance.low; domain/webhooks/watch.ts).
import { attemptDelivery } from '../domain/webhooks/deliver.ts';
import { pruneDeliveryLog } from '../domain/webhooks/deliveries.ts';
import type { Webhooks } from '../domain/webhooks/service.ts';
import { watchThresholds } from '../domain/webhooks/watch.ts';
import { backoffMs, CATALOG } from '../domain/jobs/catalog.ts';
import type { JobHandler, JobHandlers } from './runner.ts';
import type { HandlerDeps } from './handlers.ts';

export type WebhookHandlers = Pick<JobHandlers, 'webhook.endpoint' | 'webhook.url' | 'webhooks.prune' | 'webhooks.watch'>;

/** One attempt of a delivery per start, with the retry policy of the job type. */
function deliveryHandler(w: Webhooks, name: 'webhook.endpoint' | 'webhook.url'): JobHandler<{ deliveryId: string }> {
  const { retry } = CATALOG[name];
  return (job) => attemptDelivery(w, job, { maxAttempts: retry.maxAttempts, backoffMs: (n) => backoffMs(retry, n) });
}

export function webhookHandlers(w: Webhooks, opts: { watchIntervalMs: number }): WebhookHandlers {
  return {
    'webhook.endpoint': { handler: deliveryHandler(w, 'webhook.endpoint') },
    'webhook.url': { handler: deliveryHandler(w, 'webhook.url') },
    'webhooks.prune': { handler: (job) => pruneDeliveryLog(w, job.signal) },
    'webhooks.watch': {
      handler: async (job) => {
        await watchThresholds(w, job.signal);
      },
      everyMs: opts.watchIntervalMs,
    },
  };
}

/** The webhooks area's jobs (an entry of src/areas.ts). */
export const webhooksJobs = (d: HandlerDeps) => ({
  ...webhookHandlers(d.webhooks, { watchIntervalMs: d.config.webhooks.watchIntervalMs }),
}) satisfies Partial<JobHandlers>;
