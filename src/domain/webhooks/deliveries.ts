// An endpoint's delivery log, a manual retry of one delivery, and a test send.
import { newId } from '../../lib/ids.ts';
import * as q from '../../store/webhooks.ts';
import { inTransaction } from '../changes.ts';
import { paging } from '../compute/templates.ts';
import { TEST_EVENT } from './codes.ts';
import { ENDPOINT_JOB, envelope, queueAttempt } from './enqueue.ts';
import { getEndpoint } from './endpoints.ts';
import { conflict, deliveryNotFound } from './errors.ts';
import type { Webhooks } from './service.ts';
import { admitSend } from './throttle.ts';

export async function listDeliveries(w: Webhooks, teamId: string, endpointId: string, p: { pageSize?: number | undefined; pageNum?: number | undefined }): Promise<{ rows: q.DeliveryRow[]; total: number }> {
  const { limit, offset } = paging(p.pageSize, p.pageNum);
  await getEndpoint(w, teamId, endpointId);
  return q.listDeliveries(w.ctx.db, endpointId, limit, offset);
}

/**
 * Send an ended delivery (failed, or succeeded: a receiver that lost it) again now (throttled as
 * test sends are: throttle.ts), with the
 * same id and body and a full schedule of retries; its attempts keep counting. Refused while
 * it is still pending (its next try is queued) and while the endpoint is disabled.
 */
export async function retryDelivery(w: Webhooks, teamId: string, endpointId: string, deliveryId: string): Promise<q.DeliveryRow> {
  const endpoint = await getEndpoint(w, teamId, endpointId);
  return inTransaction(w.ctx, async (tx) => {
    const d = await q.findEndpointDelivery(tx, endpointId, deliveryId);
    if (!d) throw deliveryNotFound(deliveryId);
    if (endpoint.state !== 'enabled') {
      throw conflict(`endpoint ${endpointId} is disabled: enable it first (update with enabled: true)`, { endpoint_id: endpointId, rule: 'the endpoint is enabled' });
    }
    if (d.state === 'pending') {
      throw conflict(`delivery ${deliveryId} is pending: its next try is queued`, { delivery_id: deliveryId, rule: 'the delivery ended' });
    }
    await admitSend(w, teamId, endpointId); // once the retry is judged: a refused one counts for nothing
    const now = w.ctx.clock.nowMs();
    const row = await q.updateDelivery(tx, deliveryId, d.state, { state: 'pending', nextAttemptAtMs: now, updatedAtMs: now });
    if (!row) throw conflict(`delivery ${deliveryId} changed meanwhile; try again`, { delivery_id: deliveryId, rule: 'the delivery ended' });
    await queueAttempt(w.ctx.jobs, tx, ENDPOINT_JOB, deliveryId);
    return row;
  });
}

/**
 * A test send: one delivery of the event `webhook.test` to this endpoint only, whatever it
 * subscribes to, signed and retried like any other (so a receiver that fails it shows in the
 * log, and the endpoint reads as failing), its data naming the endpoint. Refused while the
 * endpoint is disabled (nothing is sent to a disabled endpoint), and past the send limits
 * (per endpoint and per team: throttle.ts).
 */
export async function sendTestDelivery(w: Webhooks, teamId: string, endpointId: string): Promise<q.DeliveryRow> {
  const endpoint = await getEndpoint(w, teamId, endpointId);
  if (endpoint.state !== 'enabled') {
    throw conflict(`endpoint ${endpointId} is disabled: enable it first (update with enabled: true)`, { endpoint_id: endpointId, rule: 'the endpoint is enabled' });
  }
  await admitSend(w, teamId, endpointId);
  const now = w.ctx.clock.nowMs();
  const row: q.NewDeliveryRow = {
    id: newId('webhookDelivery', now), teamId, endpointId, url: endpoint.url, event: TEST_EVENT,
    body: envelope(TEST_EVENT, now, { endpoint_id: endpointId, message: 'A test send from Gantry: this endpoint is reachable and verifies the signature.' }),
    state: 'pending', attempts: 0, nextAttemptAtMs: now, createdAtMs: now, updatedAtMs: now,
  };
  return inTransaction(w.ctx, async (tx) => {
    await q.insertDeliveries(tx, [row]);
    await queueAttempt(w.ctx.jobs, tx, ENDPOINT_JOB, row.id);
    return (await q.findDelivery(tx, row.id))!;
  });
}

/** How long the delivery log keeps an ended delivery. */
export const KEEP_DELIVERIES_MS = 30 * 86_400_000;

/** Deletes ended deliveries older than 30 days, 500 at a time (bounded per run). */
export async function pruneDeliveryLog(w: Webhooks, signal: AbortSignal): Promise<void> {
  const before = w.ctx.clock.nowMs() - KEEP_DELIVERIES_MS;
  for (let i = 0; i < 1000 && !signal.aborted; i++) {
    if ((await q.pruneDeliveries(w.ctx.db, before, 500)) < 500) break;
  }
}
