// Stored answers of the Responses API (src/domain/responses): the response object as the
// client read it, and the conversation up to and including its output (Responses input
// items), which a later request names with previous_response_id. Kept until `expires_at_ms`
// (GANTRY_RESPONSES_TTL_DAYS), then removed by the responses.prune job.
import { pgTable, text, bigint, index } from 'drizzle-orm/pg-core';

const ms = (name: string) => bigint(name, { mode: 'number' });

export const responses = pgTable('responses', {
  /** resp_… (lib/ids.ts) */
  id: text('id').primaryKey(),
  teamId: text('team_id').notNull(),
  memberId: text('member_id').notNull(),
  keyId: text('key_id').notNull(),
  // JSON text, not jsonb: a client's strings may hold NUL and lone surrogates, which jsonb
  // refuses and JSON.stringify escapes; the rows are read whole, never queried inside.
  /** the response object (GET /responses/{id}) */
  body: text('body').notNull(),
  /** previous conversation + this request's input + this output, as Responses input items */
  conversation: text('conversation').notNull(),
  createdAtMs: ms('created_at_ms').notNull(),
  expiresAtMs: ms('expires_at_ms').notNull(),
}, (t) => [
  index('responses_team_id').on(t.teamId, t.id),
  index('responses_expires').on(t.expiresAtMs),
]);
