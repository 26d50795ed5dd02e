// The accounts area's own tables (persons are in schema.ts beside members): one-time links
// sent by e-mail, and invitations to a team. A link's token is never stored: only its SHA-256,
// written by the mail job that puts the token in the message (domain/accounts/links.ts).
import { pgTable, text, bigint, index, uniqueIndex, primaryKey } from 'drizzle-orm/pg-core';
import { persons, teams } from './schema.ts';

const ms = (name: string) => bigint(name, { mode: 'number' });

export const personLinks = pgTable('person_links', {
  id: text('id').primaryKey(),
  /** confirm | reset | invite | email (domain/accounts/codes.ts): a token works for its purpose only */
  purpose: text('purpose').notNull(),
  /** the address the link is sent to (normalized) */
  email: text('email').notNull(),
  /** SHA-256 (hex) of the token in the message; null until the mail job makes the message */
  tokenHash: text('token_hash'),
  /** confirm: the hash of the password chosen at sign-up (the account is made when the link is followed) */
  passwordHash: text('password_hash'),
  /** invite: the invitation it accepts */
  invitationId: text('invitation_id'),
  /** email: the person whose address it changes (to `email`) */
  personId: text('person_id'),
  createdAtMs: ms('created_at_ms').notNull(),
  expiresAtMs: ms('expires_at_ms').notNull(),
  /** set once, by the one statement that uses the link (single use) */
  usedAtMs: ms('used_at_ms'),
}, (t) => [uniqueIndex('person_links_token').on(t.tokenHash), index('person_links_expiry').on(t.expiresAtMs)]);

export const invitations = pgTable('invitations', {
  id: text('id').primaryKey(),
  teamId: text('team_id').notNull().references(() => teams.id),
  /** the seat it fills: a member in status `invited` until the invitation is accepted (removed if it is revoked) */
  memberId: text('member_id').notNull(),
  email: text('email').notNull(),
  role: text('role').notNull(),
  /** the member who sent it */
  invitedBy: text('invited_by').notNull(),
  /** pending | accepted | revoked */
  status: text('status').notNull(),
  createdAtMs: ms('created_at_ms').notNull(),
  expiresAtMs: ms('expires_at_ms').notNull(),
  endedAtMs: ms('ended_at_ms'),
}, (t) => [index('invitations_team').on(t.teamId, t.createdAtMs)]);

/** Two-factor recovery codes: shown once when two-factor sign-in is turned on; only their SHA-256 kept; each works once. */
export const recoveryCodes = pgTable('person_recovery_codes', {
  personId: text('person_id').notNull().references(() => persons.id),
  codeHash: text('code_hash').notNull(),
  createdAtMs: ms('created_at_ms').notNull(),
  usedAtMs: ms('used_at_ms'),
}, (t) => [primaryKey({ columns: [t.personId, t.codeHash] })]);
