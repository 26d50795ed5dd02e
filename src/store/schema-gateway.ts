// Gateway tables: one usage event per metered model request, written in the same
// transaction as its ledger charge (src/gateway/settlement.ts).
import { bigint, integer, text, timestamp, uniqueIndex, index, pgTable } from 'drizzle-orm/pg-core';

export const usageEvents = pgTable('usage_events', {
  id: text('id').primaryKey(),
  // The gateway's request id; unique so a retried flush can never record a request twice.
  requestId: text('request_id').notNull(),
  teamId: text('team_id').notNull(),
  memberId: text('member_id').notNull(),
  keyId: text('key_id').notNull(),
  model: text('model').notNull(),
  endpoint: text('endpoint').notNull(), // chat.completions | completions | embeddings | rerank
  promptTokens: bigint('prompt_tokens', { mode: 'number' }).notNull(),
  completionTokens: bigint('completion_tokens', { mode: 'number' }).notNull(),
  /** of promptTokens, how many the upstream served from its cache (usage.prompt_tokens_details.cached_tokens) */
  cachedTokens: bigint('cached_tokens', { mode: 'number' }).notNull().default(0),
  /** of completionTokens, how many were reasoning (usage.completion_tokens_details.reasoning_tokens); billed as output */
  reasoningTokens: bigint('reasoning_tokens', { mode: 'number' }).notNull().default(0),
  inputPricePerMUnits: bigint('input_price_per_m_units', { mode: 'bigint' }).notNull(),
  outputPricePerMUnits: bigint('output_price_per_m_units', { mode: 'bigint' }).notNull(),
  /** the cached prompt tokens' price; null when none were cached */
  cachedInputPricePerMUnits: bigint('cached_input_price_per_m_units', { mode: 'bigint' }),
  costMicro: bigint('cost_micro', { mode: 'bigint' }).notNull(),
  ledgerId: text('ledger_id'), // null when the cost was zero (nothing to post)
  outcome: text('outcome').notNull(), // completed | client_cancelled
  durationMs: integer('duration_ms').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull(),
}, (t) => [
  uniqueIndex('usage_events_request').on(t.requestId),
  index('usage_events_team_time').on(t.teamId, t.createdAt),
]);

/**
 * The PostgreSQL usage journal (src/gateway/pg-journal-sink.ts): a settled request is durable
 * once its row is here (one insert, no transaction, before the response ends); any replica
 * moves rows into the ledger and usage_events in batches, deleting them in the same
 * transaction, so each is recorded exactly once. `record` is the UsageRecord as JSON text.
 */
export const usageJournal = pgTable('usage_journal', {
  id: bigint('id', { mode: 'bigint' }).primaryKey().generatedAlwaysAsIdentity(),
  teamId: text('team_id').notNull(),
  requestId: text('request_id').notNull(),
  record: text('record').notNull(),
  /** set when the ledger refused the record alone: left out of moves until the next start retries it */
  failedAt: timestamp('failed_at', { withTimezone: true, mode: 'date' }),
  error: text('error'),
});
