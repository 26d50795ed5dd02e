// The handlers of webhook.endpoint, webhook.url (one attempt of a delivery each start;
// domain/webhooks/deliver.ts), webhooks.prune (the delivery log's retention) and
// webhooks.watch (budget.threshold and balance.low; domain/webhooks/watch.ts).
import { attemptDelivery } from '../domain/webhooks/deliver.ts';
import { pruneDeliveryLog } from '../domain/webhooks/deliveries.ts';
import type { Webhooks } from '../domain/webhooks/service.ts';
import { watchThresholds } from '../domain/webhooks/watch.ts';
import { backoffMs, CATALOG } from './catalog.ts';
import type { JobRunner } from './runner.ts';

export function registerWebhookJobs(w: Webhooks, jobs: JobRunner, opts: { watchIntervalMs: number }): void {
  for (const name of ['webhook.endpoint', 'webhook.url'] as const) {
    const { retry } = CATALOG[name];
    jobs.handle(name, (job) => attemptDelivery(w, job, { maxAttempts: retry.maxAttempts, backoffMs: (n) => backoffMs(retry, n) }));
  }
  jobs.handle('webhooks.prune', (job) => pruneDeliveryLog(w, job.signal));
  jobs.handle('webhooks.watch', async (job) => {
    await watchThresholds(w, job.signal);
  }, { everyMs: opts.watchIntervalMs });
}
