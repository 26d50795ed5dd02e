// The webhooks area's job types (src/jobs/webhooks.ts): a delivery's attempts to a team
// endpoint or to a request's own URL, the delivery log's retention, the threshold watch.
import { Type } from 'typebox';
import { defineJob, NoPayload } from '../jobs/job-type.ts';

const DeliveryPayload = Type.Object({ deliveryId: Type.String({ minLength: 1 }) }, { additionalProperties: false });

export const WEBHOOK_JOBS = {
  /**
   * One delivery to a team webhook endpoint (domain/webhooks/deliver.ts): an attempt per
   * start, exponential backoff (5 s × 3^n) up to 24 h, 16 attempts over about 6.5 days; an
   * endpoint whose attempts all failed for 5 days is disabled on the way. One job at a time
   * per delivery (a manual retry queues the next).
   */
  endpoint: defineJob({
    name: 'webhook.endpoint', payload: DeliveryPayload, singleton: true, singletonKey: (p) => p.deliveryId, concurrency: 8, leaseMs: 120_000,
    retry: { maxAttempts: 16, backoff: { firstMs: 5_000, factor: 3, maxMs: 86_400_000 } },
  }),
  /**
   * One delivery to a request's own URL (extra.webhook.url; compat.md): the first attempt and
   * up to 5 retries on a timeout or a non-2xx answer, 10 s × 2^n apart.
   */
  url: defineJob({
    name: 'webhook.url', payload: DeliveryPayload, singleton: true, singletonKey: (p) => p.deliveryId, concurrency: 8, leaseMs: 120_000,
    retry: { maxAttempts: 6, backoff: { firstMs: 10_000, factor: 2, maxMs: 300_000 } },
  }),
  /** Deletes ended webhook deliveries 30 days after they were created (the delivery log's retention). */
  prune: defineJob({
    name: 'webhooks.prune', payload: NoPayload, everyMs: 3_600_000, concurrency: 1, leaseMs: 60_000,
    retry: { maxAttempts: 1, backoff: { firstMs: 60_000, factor: 2, maxMs: 3_600_000 } },
  }),
  /**
   * Looks for budget.threshold (80 % and 100 %) and balance.low crossings of teams subscribed
   * to them, each announced once (domain/webhooks/watch.ts); every GANTRY_WEBHOOK_WATCH_INTERVAL_MS.
   */
  watch: defineJob({
    name: 'webhooks.watch', payload: NoPayload, everyMs: 60_000, concurrency: 1, leaseMs: 120_000,
    retry: { maxAttempts: 1, backoff: { firstMs: 60_000, factor: 2, maxMs: 3_600_000 } },
  }),
};
