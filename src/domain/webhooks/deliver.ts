// One attempt of a delivery (the handler of the webhook.endpoint and webhook.url jobs):
// signed with the team's secrets of the moment, sent by send.ts, recorded in the delivery's
// row. A failure is thrown back to the job runner, which tries again after the catalogue's
// backoff; the last attempt leaves the delivery failed. A team endpoint whose attempts have
// all failed for 5 days is disabled (state, reason and time in its GET, a warning in the
// log), and its pending deliveries end.
import type { JobContext } from '../jobs/queue.ts';
import * as q from '../../store/webhooks.ts';
import { inTransaction } from '../changes.ts';
import { DISABLE_AFTER_FAILING_MS } from './codes.ts';
import { signingSecrets } from './secrets.ts';
import { sendWebhook } from './send.ts';
import { signedHeaders } from './signature.ts';
import type { Webhooks } from './service.ts';

export interface AttemptPolicy {
  maxAttempts: number;
  /** the wait after `failures` failed attempts (the catalogue's backoff) */
  backoffMs(failures: number): number;
}

export class DeliveryFailed extends Error {
  constructor(id: string, why: string) {
    super(`delivery ${id}: ${why}`);
    this.name = 'DeliveryFailed';
  }
}

export async function attemptDelivery(w: Webhooks, job: JobContext<{ deliveryId: string }>, policy: AttemptPolicy): Promise<void> {
  const { db, clock } = w.ctx;
  const id = job.payload.deliveryId;
  const d = await q.findDelivery(db, id);
  if (d?.state !== 'pending') return; // deleted with its endpoint, or ended meanwhile
  const endpoint = d.endpointId ? await q.findEndpointById(db, d.endpointId) : undefined;
  if (d.endpointId && !endpoint) return;
  if (endpoint && endpoint.state !== 'enabled') {
    await q.updateDelivery(db, id, 'pending', { state: 'failed', lastError: 'the endpoint is disabled', nextAttemptAtMs: null, updatedAtMs: clock.nowMs() });
    return;
  }
  const url = endpoint?.url ?? d.url; // an endpoint's URL may have changed since the event
  const secrets = await signingSecrets(w, d.teamId);
  const now = clock.nowMs();
  const r = await sendWebhook(url, signedHeaders(secrets, d.id, Math.floor(now / 1000), d.body), d.body, {
    timeoutMs: w.settings.timeoutMs, allowPrivate: w.settings.allowPrivate, signal: job.signal,
  });
  const attempt = { url, attempts: d.attempts + 1, lastStatusCode: r.status, lastError: r.error, lastLatencyMs: r.latencyMs, lastAttemptAtMs: now, updatedAtMs: now };
  if (r.ok) {
    await job.completeWith(async (tx) => {
      await q.updateDelivery(tx, id, 'pending', { ...attempt, state: 'succeeded', nextAttemptAtMs: null });
      if (endpoint) await q.markEndpointDelivering(tx, endpoint.id);
    });
    return;
  }
  const last = job.attempt >= policy.maxAttempts;
  const disabled = await inTransaction(w.ctx, async (tx) => {
    const e = endpoint ? await q.markEndpointFailing(tx, endpoint.id, now) : undefined;
    const failingSince = e?.failingSinceMs ?? null;
    const disable = e?.state === 'enabled' && failingSince !== null && now - failingSince >= DISABLE_AFTER_FAILING_MS;
    const ends = last || disable;
    await q.updateDelivery(tx, id, 'pending', { ...attempt, state: ends ? 'failed' : 'pending', nextAttemptAtMs: ends ? null : now + policy.backoffMs(job.attempt) });
    if (!disable || !e) return undefined;
    const reason = `every attempt failed since ${new Date(failingSince!).toISOString()} (5 days); the last: ${r.error}`;
    await q.updateEndpoint(tx, e.teamId, e.id, { state: 'disabled', disabledReason: reason, disabledAtMs: now, updatedAtMs: now });
    await q.failPendingDeliveries(tx, e.id, now, 'the endpoint was disabled: its attempts failed for 5 days');
    return { teamId: e.teamId, endpointId: e.id, url: e.url, reason };
  });
  if (disabled) {
    w.log.warn(disabled, 'webhook endpoint disabled: its attempts failed for 5 days');
    return;
  }
  // the job's error is the operator's (GET /admin/v1/jobs): it may say more than the delivery log
  throw new DeliveryFailed(id, r.operatorDetail ?? r.error ?? 'failed');
}
