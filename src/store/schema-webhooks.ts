// Webhooks (src/domain/webhooks): each team's signing secret (sealed with the data dir's
// key), its webhook endpoints, and one row per delivery (the delivery log). A delivery is
// sent by a durable job (src/jobs/webhooks.ts); its row is what the team reads.
import { bigint, index, integer, jsonb, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';

const ms = (name: string) => bigint(name, { mode: 'number' });

export const webhookSecrets = pgTable('webhook_secrets', {
  teamId: text('team_id').primaryKey(),
  /** `whsec_…`, sealed (lib/secret-box.ts): signing needs the secret itself, so it is encrypted, not hashed */
  secretSealed: text('secret_sealed').notNull(),
  /** the secret before the last rotation, still signing until `previous_until_ms` */
  previousSealed: text('previous_sealed'),
  previousUntilMs: ms('previous_until_ms'),
  createdAtMs: ms('created_at_ms').notNull(),
  rotatedAtMs: ms('rotated_at_ms'),
});

export const webhookEndpoints = pgTable('webhook_endpoints', {
  id: text('id').primaryKey(),
  teamId: text('team_id').notNull(),
  url: text('url').notNull(),
  /** event types the endpoint receives (domain/webhooks/codes.ts) */
  events: jsonb('events').$type<string[]>().notNull(),
  description: text('description').notNull().default(''),
  /** enabled | disabled */
  state: text('state').notNull(),
  /** why it is disabled (failing for 5 days, or by the team) */
  disabledReason: text('disabled_reason'),
  disabledAtMs: ms('disabled_at_ms'),
  /** the first failed attempt since the last success; null while it delivers */
  failingSinceMs: ms('failing_since_ms'),
  createdAtMs: ms('created_at_ms').notNull(),
  updatedAtMs: ms('updated_at_ms').notNull(),
}, (t) => [
  index('webhook_endpoints_team').on(t.teamId, t.id),
]);

export const webhookDeliveries = pgTable('webhook_deliveries', {
  /** `msg_…`: the `webhook-id` header, the same on every attempt (receivers deduplicate on it) */
  id: text('id').primaryKey(),
  teamId: text('team_id').notNull(),
  /** the team endpoint; null for a one-off delivery to a request's own URL (extra.webhook.url) */
  endpointId: text('endpoint_id'),
  url: text('url').notNull(),
  event: text('event').notNull(),
  /** the exact bytes sent (what is signed) */
  body: text('body').notNull(),
  /** pending | succeeded | failed */
  state: text('state').notNull(),
  attempts: integer('attempts').notNull().default(0),
  lastStatusCode: integer('last_status_code'),
  lastError: text('last_error'),
  lastLatencyMs: integer('last_latency_ms'),
  lastAttemptAtMs: ms('last_attempt_at_ms'),
  /** when the next attempt is due; null once it ended */
  nextAttemptAtMs: ms('next_attempt_at_ms'),
  createdAtMs: ms('created_at_ms').notNull(),
  updatedAtMs: ms('updated_at_ms').notNull(),
}, (t) => [
  index('webhook_deliveries_endpoint').on(t.endpointId, t.id),
  index('webhook_deliveries_created').on(t.createdAtMs),
]);

/**
 * Thresholds already announced (budget.threshold, balance.low): one row per crossing, so the
 * watch pass announces each once. The mark names the crossing: the budget, its limit, its
 * period and the percentage, or `balance.low` (removed when the balance is above the
 * threshold again, so the next fall is announced).
 */
export const webhookMarks = pgTable('webhook_marks', {
  teamId: text('team_id').notNull(),
  mark: text('mark').notNull(),
  createdAtMs: ms('created_at_ms').notNull(),
}, (t) => [primaryKey({ columns: [t.teamId, t.mark] })]);
