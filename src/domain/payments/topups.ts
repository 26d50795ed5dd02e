// Card top-ups: a member starts one (a Stripe Checkout Session), Stripe's webhook credits it.
// The rules are in ./README.md; keep the two in step.
import { newId } from '../../lib/ids.ts';
import { CurrencyError, microToUnitString, stripeMinorToMicro, unitsToMicro, unitsToUsdCents } from '../../lib/money.ts';
import type { Principal } from '../roles.ts';
import { inTransaction } from '../changes.ts';
import { lockTeamOrThrow, postLockedTx } from '../billing/ledger.ts';
import * as q from '../../store/payments.ts';
import { amountNotCents, amountOutOfRange, badSignature, paymentsOff, stripeUnavailable } from './errors.ts';
import { ProcessorError, SignatureError, type CheckoutState, type ProcessorEvent } from './processor.ts';
import type { Payments } from './payments.ts';

/** The events that can say a top-up's money arrived; any other is acknowledged and ignored. */
export const CREDITING_EVENTS = new Set(['checkout.session.completed', 'checkout.session.async_payment_succeeded', 'payment_intent.succeeded']);

export interface TopupView {
  topupId: string;
  /** units (1/10000 USD), as asked */
  amount: string;
  /** open: to be paid; credited: Stripe's webhook credited it; failed: Stripe could not open a page for it */
  state: 'open' | 'credited' | 'failed';
  /** Stripe's payment page while open */
  checkoutUrl: string | null;
  /** Stripe's receipt of the charge, once credited */
  receiptUrl: string | null;
  /** Unix seconds, as strings like the interface's times */
  createdAt: string;
  creditedAt: string | null;
}

function card(payments: Payments) {
  if (!payments.card) throw paymentsOff();
  return payments.card;
}

function judgeAmount(settings: { minTopupUnits: bigint; maxTopupUnits: bigint }, units: bigint): bigint {
  if (units < settings.minTopupUnits || units > settings.maxTopupUnits) throw amountOutOfRange(units, settings.minTopupUnits, settings.maxTopupUnits);
  try {
    return unitsToUsdCents(units);
  } catch (e) {
    if (e instanceof CurrencyError) throw amountNotCents(units);
    throw e;
  }
}

/** The ledger's idempotency key of a top-up: its Checkout Session, whatever event or replica credits it. */
export function ledgerKeyOf(sessionId: string): string {
  return `stripe:${sessionId}`;
}

/** An Owner or Billing member starts a top-up of `amountUnits`: the row, then Stripe's Checkout Session; answers where to pay. */
export async function startTopup(payments: Payments, p: Principal, input: { amountUnits: bigint }): Promise<TopupView> {
  const { settings, processor } = card(payments);
  const amountCents = judgeAmount(settings, input.amountUnits);
  const { ctx } = payments;
  const now = ctx.clock.nowMs();
  const topupId = newId('cardTopup', now);
  // The row first: a session Stripe made is always one Gantry knows, even if this process
  // dies before it stores the session's id (the webhook names the top-up in its metadata).
  await q.insertTopup(ctx.db, { id: topupId, teamId: p.teamId, memberId: p.memberId, amountMicro: unitsToMicro(input.amountUnits), state: 'open', createdAtMs: now });
  let checkout: Awaited<ReturnType<typeof processor.createCheckout>>;
  try {
    checkout = await processor.createCheckout({ topupId, teamId: p.teamId, amountCents, description: `Gantry balance top-up (${p.teamId})`, returnUrl: settings.returnUrl });
  } catch (e) {
    // The customer never got a page to pay on: the row says so (a webhook for it would still credit, on Stripe's word)
    await q.updateTopup(ctx.db, topupId, { state: 'failed' });
    if (e instanceof ProcessorError) throw stripeUnavailable(e.message);
    throw e;
  }
  await q.updateTopup(ctx.db, topupId, { sessionId: checkout.sessionId });
  return view((await q.findTopup(ctx.db, topupId))!, checkout.url);
}

export async function listTopups(payments: Payments, p: Principal): Promise<TopupView[]> {
  card(payments);
  return (await q.listTopupsOfTeam(payments.ctx.db, p.teamId, 100)).map((r) => view(r, null));
}

function view(r: q.TopupRow, checkoutUrl: string | null): TopupView {
  const s = (ms: number | null) => (ms === null ? null : String(Math.floor(ms / 1000)));
  return {
    topupId: r.id, amount: microToUnitString(r.amountMicro), state: r.state as TopupView['state'],
    checkoutUrl: r.state === 'open' ? checkoutUrl : null, receiptUrl: r.receiptUrl, createdAt: s(r.createdAtMs)!, creditedAt: s(r.creditedAtMs),
  };
}

export type WebhookOutcome = 'credited' | 'duplicate' | 'ignored' | 'unpaid';

/**
 * A webhook from Stripe, as its raw bytes and its Stripe-Signature. Credits a top-up once
 * when Stripe says, on asking it now, that the session is paid: whichever event comes first,
 * in whatever order, however often, on whichever replica. Throws (a 5xx, so Stripe retries)
 * when the credit could not be written; nothing of it is then.
 */
export async function receiveStripeWebhook(payments: Payments, rawBody: string, signature: string | undefined): Promise<WebhookOutcome> {
  const { processor } = card(payments);
  const { ctx } = payments;
  let event: ProcessorEvent;
  try {
    if (!signature) throw new SignatureError('no Stripe-Signature header');
    event = processor.verifyEvent(rawBody, signature, ctx.clock.nowMs());
  } catch (e) {
    if (e instanceof SignatureError) throw badSignature(e.message);
    throw e;
  }
  if (!CREDITING_EVENTS.has(event.type)) return 'ignored';
  if (await q.eventSeen(ctx.db, event.id)) return 'duplicate';
  const topup = event.topupId ? await q.findTopup(ctx.db, event.topupId) : undefined;
  const sessionId = topup?.sessionId ?? event.sessionId;
  if (!topup || !sessionId) {
    payments.log.warn({ eventId: event.id, type: event.type, topupId: event.topupId }, 'a Stripe event names no top-up of Gantry\'s: acknowledged, nothing credited');
    return 'ignored';
  }
  // The event's own copy may be stale or out of order: what counts is the session now.
  let state: CheckoutState;
  try {
    state = await processor.retrieveCheckout(sessionId);
  } catch (e) {
    if (e instanceof ProcessorError) throw stripeUnavailable(e.message);
    throw e;
  }
  if (state.topupId !== topup.id) {
    payments.log.error({ eventId: event.id, sessionId, topupId: topup.id, sessionTopup: state.topupId }, 'a Stripe session does not belong to the top-up its event names: nothing credited');
    return 'ignored';
  }
  if (!state.paid) return 'unpaid';
  return credit(payments, topup, state, event);
}

/** The credit, one transaction: the event recorded, one ledger entry keyed by the session, the top-up marked credited. */
async function credit(payments: Payments, topup: q.TopupRow, state: CheckoutState, event: ProcessorEvent): Promise<WebhookOutcome> {
  const { ctx } = payments;
  // What Stripe says was paid, converted exactly (a currency that cannot be is refused, so Stripe retries and the operator sees it)
  const amountMicro = stripeMinorToMicro(state.amountMinor, state.currency);
  if (amountMicro !== topup.amountMicro) {
    payments.log.warn({ topupId: topup.id, asked: topup.amountMicro.toString(), paid: amountMicro.toString() }, 'a top-up was paid another amount than asked: the amount paid is credited');
  }
  return inTransaction(ctx, async (tx) => {
    const now = ctx.clock.nowMs();
    const team = await lockTeamOrThrow(tx, topup.teamId);
    // Under the team's lock: a concurrent delivery of this event waited here and finds it recorded.
    if (!(await q.recordEvent(tx, { id: event.id, type: event.type, receivedAtMs: now }))) return 'duplicate' as const;
    const [posted] = await postLockedTx(tx, team, [{
      teamId: topup.teamId, kind: 'topup', amountMicro, idempotencyKey: ledgerKeyOf(state.sessionId), category: 'topup', productName: 'Card top-up',
      detail: { topupId: topup.id, checkoutSession: state.sessionId, paymentIntent: state.paymentIntentId ?? '', receiptUrl: state.receiptUrl ?? '', memberId: topup.memberId },
    }], now);
    if (posted!.duplicate) return 'duplicate' as const;
    await q.updateTopup(tx, topup.id, {
      state: 'credited', ledgerId: posted!.entry.id, paymentIntentId: state.paymentIntentId ?? null, receiptUrl: state.receiptUrl ?? null, creditedAtMs: now,
      sessionId: state.sessionId,
    });
    return 'credited' as const;
  });
}
