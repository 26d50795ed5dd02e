// THE way other areas send a webhook: call enqueueWebhook inside the transaction that makes
// the event true, so the deliveries exist if and only if it commits.
//
//   await enqueueWebhook(ctx, { teamId, event: 'batch.completed', payload: batchObject }, { tx });
//     → one delivery to each of the team's enabled endpoints subscribed to the event, body
//       {"type": event, "timestamp": ISO 8601, "data": payload}; retried with exponential
//       backoff up to 24 h for about 6 days (job webhook.endpoint).
//   await enqueueWebhook(ctx, { teamId, event: 'ASYNC_TASK_RESULT', url, payload: { event_type: 'ASYNC_TASK_RESULT', payload: result } }, { tx });
//     → one delivery of `payload`, as given, to `url` (a request's extra.webhook.url):
//       5 s timeout, up to 5 retries on timeout or non-2xx (job webhook.url). Check the URL
//       when the request comes in with checkWebhookUrl (endpoints.ts).
//
// Every attempt is signed with the team's secret (Standard Webhooks headers). Resolves to the
// ids of the deliveries queued (`msg_…`, the `webhook-id` header). Each delivery's job is
// queued through the context's job queue (`ctx.jobs`, like any other job) in the same
// transaction; a runner takes it at its next poll (GANTRY_JOBS_POLL_MS), at once when the
// enqueueing process runs jobs.
import { newId } from '../../lib/ids.ts';
import type { DbOrTx } from '../../store/db.ts';
import * as q from '../../store/webhooks.ts';
import type { Ctx } from '../context.ts';
import type { JobQueue } from '../jobs/queue.ts';
import { isWebhookEvent, type TEST_EVENT, type WebhookEvent } from './codes.ts';
import { WEBHOOK_JOBS } from './jobs.ts';

export type WebhookMessage =
  /** to the team's endpoints subscribed to `event`, in the envelope {type, timestamp, data: payload} */
  | { teamId: string; event: WebhookEvent; payload: unknown; url?: undefined }
  /** to `url` only, `payload` as the body; `event` names it in the log */
  | { teamId: string; event: string; payload: unknown; url: string };

/** The job types that send deliveries (jobs.ts). */
export const ENDPOINT_JOB = WEBHOOK_JOBS.endpoint;
export const URL_JOB = WEBHOOK_JOBS.url;
export type DeliveryJob = typeof ENDPOINT_JOB | typeof URL_JOB;

function json(v: unknown): string {
  return JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? x.toString() : x));
}

/** The envelope of a team endpoint's event (Standard Webhooks' suggestion). */
export function envelope(event: WebhookEvent | typeof TEST_EVENT, nowMs: number, data: unknown): string {
  return json({ type: event, timestamp: new Date(nowMs).toISOString(), data });
}

export async function enqueueWebhook(ctx: Pick<Ctx, 'db' | 'clock' | 'jobs'>, m: WebhookMessage, opts: { tx?: DbOrTx } = {}): Promise<string[]> {
  const db = opts.tx ?? ctx.db;
  const now = ctx.clock.nowMs();
  const base = { teamId: m.teamId, event: m.event, state: 'pending', attempts: 0, nextAttemptAtMs: now, createdAtMs: now, updatedAtMs: now };
  let rows: q.NewDeliveryRow[];
  let job: DeliveryJob;
  if (m.url !== undefined) {
    rows = [{ ...base, id: newId('webhookDelivery', now), endpointId: null, url: m.url, body: json(m.payload) }];
    job = URL_JOB;
  } else {
    if (!isWebhookEvent(m.event)) throw new Error(`enqueueWebhook: unknown event ${m.event}`);
    const endpoints = await q.subscribedEndpoints(db, m.teamId, m.event);
    if (!endpoints.length) return [];
    const body = envelope(m.event, now, m.payload);
    rows = endpoints.map((e) => ({ ...base, id: newId('webhookDelivery', now), endpointId: e.id, url: e.url, body }));
    job = ENDPOINT_JOB;
  }
  await q.insertDeliveries(db, rows);
  for (const r of rows) await queueAttempt(ctx.jobs, db, job, r.id);
  return rows.map((r) => r.id);
}

/**
 * A job that sends delivery `deliveryId` now (its first attempt, or a manual retry), in `tx`.
 * One job at a time per delivery (the catalogue's singleton key is the delivery id): a job
 * still waiting for its backoff (a delivery failed when its endpoint was disabled, then
 * retried by hand) starts afresh now instead.
 */
export async function queueAttempt(jobs: JobQueue, tx: DbOrTx, job: DeliveryJob, deliveryId: string): Promise<void> {
  await jobs.enqueue(job, { deliveryId }, { tx, restartQueued: true });
}
