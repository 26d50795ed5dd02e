// The closed sets and fixed numbers of webhooks (README.md).

/** Events a team endpoint may subscribe to (the list; `budget.threshold` at 80 % and 100 %). */
export const WEBHOOK_EVENTS = [
  'task.succeeded', 'task.failed',
  'batch.completed', 'batch.failed', 'batch.expired',
  'instance.state_changed', 'endpoint.state_changed',
  'budget.threshold', 'balance.low',
] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

/**
 * The event of a test send (POST …/endpoints/{id}/test): sent to that one endpoint whatever it
 * subscribes to, never subscribable, so receivers can tell a test from a real event.
 */
export const TEST_EVENT = 'webhook.test';

export function isWebhookEvent(s: string): s is WebhookEvent {
  return (WEBHOOK_EVENTS as readonly string[]).includes(s);
}

export const ENDPOINT_STATES = ['enabled', 'disabled'] as const;
export type WebhookEndpointState = (typeof ENDPOINT_STATES)[number];

export const DELIVERY_STATES = ['pending', 'succeeded', 'failed'] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];

/** The event name of a one-off delivery to a request's own URL (compat.md: extra.webhook.url). */
export const ASYNC_TASK_RESULT = 'ASYNC_TASK_RESULT';

/** How long the secret before a rotation keeps signing beside the new one. */
export const PREVIOUS_SECRET_MS = 24 * 3_600_000;

/** An endpoint whose attempts all failed for this long is disabled. */
export const DISABLE_AFTER_FAILING_MS = 5 * 86_400_000;

/** Endpoints a team may have. */
export const MAX_ENDPOINTS_PER_TEAM = 50;
export const MAX_URL_LENGTH = 2048;
export const MAX_DESCRIPTION_LENGTH = 500;

/** How much of a receiver's answer (or of an error) the delivery log keeps. */
export const MAX_ERROR_CHARS = 500;
