// Console sessions (src/domain/console): a signed-in browser holds a random secret in an
// HttpOnly cookie; only its SHA-256 is stored here. A key session keeps the hash of the API
// key it was opened with (the api_keys row holds the same hash), so every call made through
// it is authenticated exactly as the key would be; an operator session keeps the operator
// token's hash and ends when the token is rotated; a person session keeps the person and the
// team it acts in, and acts as that person's member there. Signing out deletes the row.
import { pgTable, text, bigint, index } from 'drizzle-orm/pg-core';

const ms = (name: string) => bigint(name, { mode: 'number' });

export const consoleSessions = pgTable('console_sessions', {
  /** SHA-256 (hex) of the cookie's secret */
  id: text('id').primaryKey(),
  /** key | operator | person */
  kind: text('kind').notNull(),
  /** the id its person lists and revokes it by (`ses_…`); null for sessions made before persons */
  ref: text('ref'),
  /** person sessions: who signed in */
  personId: text('person_id'),
  /** person sessions: the team it acts in now (the person's member there is its principal) */
  teamId: text('team_id'),
  /** person sessions: the browser that signed in, as it said (shown in the person's list of sessions) */
  userAgent: text('user_agent'),
  /** key sessions: SHA-256 of the API key (as api_keys.secret_hash) */
  keySecretHash: text('key_secret_hash'),
  /** operator sessions: SHA-256 of the operator token it was opened with */
  operatorTokenHash: text('operator_token_hash'),
  /** sent back in x-csrf-token on every change made through the session */
  csrfToken: text('csrf_token').notNull(),
  createdAtMs: ms('created_at_ms').notNull(),
  expiresAtMs: ms('expires_at_ms').notNull(),
}, (t) => [index('console_sessions_expiry').on(t.expiresAtMs), index('console_sessions_person').on(t.personId)]);
