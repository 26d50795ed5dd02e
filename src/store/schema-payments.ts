// Card top-ups (src/domain/payments): one row per top-up a member started (a Stripe Checkout
// Session), and the id of every Stripe event Gantry acted on. The money itself is in the
// ledger: a credited top-up is one ledger entry keyed by its Checkout Session
// (`stripe:<cs_…>`, unique per team), written in the same transaction that marks the row
// credited and records the event, so a crash before the commit leaves nothing of it.
import { bigint, index, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';

const ms = (name: string) => bigint(name, { mode: 'number' });

export const cardTopups = pgTable('card_topups', {
  /** `tup_…`: Gantry's id, sent to Stripe as the session's client_reference_id and in both objects' metadata */
  id: text('id').primaryKey(),
  teamId: text('team_id').notNull(),
  /** who started it (an Owner or Billing member) */
  memberId: text('member_id').notNull(),
  /** what the member asked for, micro-units; the credit is what Stripe says was paid (the same, converted exactly) */
  amountMicro: bigint('amount_micro', { mode: 'bigint' }).notNull(),
  /** `cs_…`, once Stripe made the session */
  sessionId: text('session_id'),
  /** `pi_…`, once paid */
  paymentIntentId: text('payment_intent_id'),
  /** open | credited | failed (Stripe could not open its Checkout Session) */
  state: text('state').notNull(),
  /** Stripe's receipt of the charge, once paid */
  receiptUrl: text('receipt_url'),
  /** the ledger entry that credited it */
  ledgerId: text('ledger_id'),
  createdAtMs: ms('created_at_ms').notNull(),
  creditedAtMs: ms('credited_at_ms'),
}, (t) => [
  uniqueIndex('card_topups_session').on(t.sessionId),
  index('card_topups_team').on(t.teamId, t.createdAtMs),
]);

/** Stripe events acted on, by id: a redelivery (Stripe retries, replays, a second replica) finds its id here and does nothing. */
export const stripeEvents = pgTable('stripe_events', {
  id: text('id').primaryKey(),
  type: text('type').notNull(),
  receivedAtMs: ms('received_at_ms').notNull(),
});
