// Money set aside by work that has started and will be charged as it runs (a GPU
// instance's first hour): counted against the team's balance and the member's and key's
// budgets until the charges come in, so that concurrent admissions cannot all spend it.
import { sql } from 'drizzle-orm';
import { pgTable, text, bigint, timestamp, index } from 'drizzle-orm/pg-core';

export const spendHolds = pgTable('spend_holds', {
  /** the resource holding the money (an instance id): one hold each */
  ownerId: text('owner_id').primaryKey(),
  teamId: text('team_id').notNull(),
  memberId: text('member_id'),
  keyId: text('key_id'),
  amountMicro: bigint('amount_micro', { mode: 'bigint' }).notNull().default(sql`0`),
  updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull(),
}, (t) => [
  index('spend_holds_team').on(t.teamId),
  index('spend_holds_member').on(t.memberId),
  index('spend_holds_key').on(t.keyId),
]);
