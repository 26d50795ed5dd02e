// What an Owner, Admin (or Billing, for budgets) restricts about a member, binding every key
// the member has and creates (src/domain/policy/README.md): a model-access policy ANDed with
// each key's own, and the budget each new key of the member starts with. Members are never
// deleted, and the domain checks the member before writing, so no foreign keys (as the other
// schema-*.ts files).
import { pgTable, text, bigint, jsonb, timestamp } from 'drizzle-orm/pg-core';

export const memberPolicies = pgTable('member_policies', {
  memberId: text('member_id').primaryKey(),
  teamId: text('team_id').notNull(),
  /** the key policy's shape (domain/policy/policy.ts `Policy`) */
  policy: jsonb('policy').notNull(),
  updatedAtS: bigint('updated_at_s', { mode: 'number' }).notNull(),
  updatedBy: text('updated_by').notNull(),
});

/** No row: new keys start Unlimited. */
export const memberKeyBudgetDefaults = pgTable('member_key_budget_defaults', {
  memberId: text('member_id').primaryKey(),
  teamId: text('team_id').notNull(),
  budgetType: text('budget_type').notNull(), // One-time | Recurring
  limitUnits: bigint('limit_units', { mode: 'bigint' }).notNull(),
  cycle: text('cycle'),
  updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull(),
  updatedBy: text('updated_by').notNull(),
});
