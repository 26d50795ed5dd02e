// Operator accounts (domain/accounts/operators.ts): a grant makes a person an operator, who
// reaches the operator's views (/admin/v1) through their console session, with two-factor
// sign-in on. A grant is `invited` (a link sent to the address, its account made or signed in
// when followed), then `active` for the person who followed it, until `revoked`. The operator
// token stays the CLI's and automation's.
import { sql } from 'drizzle-orm';
import { pgTable, text, bigint, uniqueIndex } from 'drizzle-orm/pg-core';
import { persons } from './schema.ts';

const ms = (name: string) => bigint(name, { mode: 'number' });

export const operatorGrants = pgTable('operator_grants', {
  id: text('id').primaryKey(),
  /** the address invited (normalized): the operator link goes to it */
  email: text('email').notNull(),
  /** who holds it, once the link is followed */
  personId: text('person_id').references(() => persons.id),
  /** invited | active | revoked (domain/accounts/codes.ts) */
  status: text('status').notNull(),
  /** `operator-token`, or the id of the operator person who granted it */
  grantedBy: text('granted_by').notNull(),
  createdAtMs: ms('created_at_ms').notNull(),
  acceptedAtMs: ms('accepted_at_ms'),
  revokedAtMs: ms('revoked_at_ms'),
}, (t) => [
  // one invitation waiting per address, one live grant per person
  uniqueIndex('operator_grants_invited_email').on(t.email).where(sql`status = 'invited'`),
  uniqueIndex('operator_grants_active_person').on(t.personId).where(sql`status = 'active'`),
]);
