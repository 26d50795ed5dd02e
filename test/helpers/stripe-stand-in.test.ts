// The Stripe stand-in itself: the official client talks to it, its webhooks verify with the
// official package's own check, and a field either side gets wrong fails against the excerpt
// of Stripe's published schema. No Gantry here; test/payments.test.ts drives Gantry with it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import Stripe from 'stripe';
import { checkAgainstStripe, decodeStripeForm, startStripeStandIn, stripeSignature, type StandInEvent } from './stripe-stand-in.ts';

test('the official client creates, retrieves and expands through the stand-in; its webhooks verify with stripe.webhooks.constructEvent', async (t) => {
  const delivered: { payload: string; signature: string }[] = [];
  const standIn = await startStripeStandIn({ deliver: async (payload, signature) => { delivered.push({ payload, signature }); return 200; } });
  t.after(() => standIn.close());
  const stripe = new Stripe(standIn.apiKey, { host: standIn.host, port: standIn.port, protocol: 'http', maxNetworkRetries: 0 });
  const session = await stripe.checkout.sessions.create({
    mode: 'payment', client_reference_id: 'team_1', metadata: { gantryTopup: 'tup_1' },
    line_items: [{ quantity: 1, price_data: { currency: 'usd', unit_amount: 2500, product_data: { name: 'Top-up' } } }],
    payment_intent_data: { metadata: { gantryTopup: 'tup_1' } },
    success_url: 'http://gantry.test/console/', cancel_url: 'http://gantry.test/console/',
  });
  assert.equal(session.amount_total, 2500);
  assert.equal(session.payment_status, 'unpaid');
  assert.match(session.url ?? '', /^https:\/\/checkout\.stripe\.test\//);

  const events = standIn.complete(session.id);
  assert.deepEqual(events.map((e: StandInEvent) => e.type), ['checkout.session.completed', 'payment_intent.succeeded']);
  const paid = await stripe.checkout.sessions.retrieve(session.id, { expand: ['payment_intent.latest_charge'] });
  const pi = paid.payment_intent as Stripe.PaymentIntent;
  assert.equal(pi.status, 'succeeded');
  assert.equal(pi.metadata.gantryTopup, 'tup_1', 'the PaymentIntent carries what payment_intent_data asked');
  assert.match((pi.latest_charge as Stripe.Charge).receipt_url ?? '', /receipts/);
  assert.equal((await stripe.events.retrieve(events[0]!.id)).type, 'checkout.session.completed');

  assert.equal(await standIn.deliver(events[0]!), 200);
  const [{ payload, signature }] = delivered as [{ payload: string; signature: string }];
  assert.match(signature, /^t=\d+,v1=[0-9a-f]{64}$/);
  const verified = stripe.webhooks.constructEvent(payload, signature, standIn.webhookSecret);
  assert.equal(verified.id, events[0]!.id);
  assert.throws(() => stripe.webhooks.constructEvent(payload, signature, 'whsec_other'), /signature/i);
  assert.throws(() => stripe.webhooks.constructEvent(payload.replace('"paid"', '"unpaid"'), signature, standIn.webhookSecret), /signature/i);
  const stale = stripeSignature(payload, standIn.webhookSecret, Math.floor(Date.now() / 1000) - 600);
  assert.throws(() => stripe.webhooks.constructEvent(payload, stale, standIn.webhookSecret), /tolerance/i, 'older than five minutes is refused');
  assert.deepEqual(standIn.violations, []);
});

test('a field the client sends or the stand-in answers outside Stripe\'s published schema fails', async (t) => {
  const standIn = await startStripeStandIn({ deliver: async () => 200 });
  t.after(() => standIn.close());
  const stripe = new Stripe(standIn.apiKey, { host: standIn.host, port: standIn.port, protocol: 'http', maxNetworkRetries: 0 });
  await assert.rejects(stripe.checkout.sessions.create({
    mode: 'payment', success_url: 'http://x/', line_items: [{ quantity: 1, price_data: { currency: 'usd', unit_amount: 1, product_data: { name: 'x' } } }],
    amount_totl: 5,
  } as Stripe.Checkout.SessionCreateParams), (e: Error) => e instanceof Stripe.errors.StripeInvalidRequestError);
  assert.equal(standIn.violations.length, 1);
  assert.match(standIn.violations[0]!, /additional properties/);
  await assert.rejects(new Stripe('sk_test_wrong', { host: standIn.host, port: standIn.port, protocol: 'http', maxNetworkRetries: 0 }).checkout.sessions.retrieve('cs_x'),
    (e: Error) => e instanceof Stripe.errors.StripeAuthenticationError);
  const session = { id: 'cs_1', object: 'checkout.session', mode: 'payment', livemode: false, created: 1, expires_at: 2, payment_method_types: ['card'], payment_status: 'paid' };
  assert.equal(checkAgainstStripe('checkout.session', session), undefined);
  assert.match(checkAgainstStripe('checkout.session', { ...session, payment_status: 'done' }) ?? '', /allowed values/);
  assert.match(checkAgainstStripe('checkout.session', { ...session, amount_totl: 1 }) ?? '', /additional properties/);
  assert.match(checkAgainstStripe('checkout.session', { ...session, amount_total: '25' }) ?? '', /must be integer/, 'an answer\'s text where an integer goes fails (only form bodies are read as text)');
});

test('form bodies decode as the client encodes them', () => {
  assert.deepEqual(decodeStripeForm('a=1&b[c]=2&d[0][e]=x%20y&d[1][e]=z&f[]=g'), { a: '1', b: { c: '2' }, d: [{ e: 'x y' }, { e: 'z' }], f: ['g'] });
});
