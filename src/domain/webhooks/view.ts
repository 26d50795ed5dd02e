// What the team reads of endpoints and deliveries: snake_case, times in Unix seconds (null when unset).
import type { DeliveryRow, EndpointRow } from '../../store/webhooks.ts';

const s = (ms: number | null): number | null => (ms === null ? null : Math.floor(ms / 1000));

export function endpointView(e: EndpointRow) {
  return {
    id: e.id, url: e.url, events: e.events, description: e.description, state: e.state,
    disabled_reason: e.disabledReason, disabled_at: s(e.disabledAtMs), failing_since: s(e.failingSinceMs),
    created_at: s(e.createdAtMs)!, updated_at: s(e.updatedAtMs)!,
  };
}

export function deliveryView(d: DeliveryRow) {
  return {
    id: d.id, event: d.event, state: d.state, attempts: d.attempts,
    status_code: d.lastStatusCode, latency_ms: d.lastLatencyMs, error: d.lastError,
    last_attempt_at: s(d.lastAttemptAtMs), next_attempt_at: s(d.nextAttemptAtMs), created_at: s(d.createdAtMs)!,
    payload: d.body,
  };
}
