// The Stripe stand-in itself: the official client talks to it, its webhooks verify with the
// official package's own check, a request with a parameter it does not know is refused (400,
// in `violations`), and an answer with a field the package's types do not have fails tsc (the
// `@ts-expect-error` lines below). No Gantry here; src/http/routes/payments/payments.test.ts
// drives Gantry with it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import Stripe from 'stripe';
import { decodeStripeForm, startStripeStandIn, stripeSignature, unknownCreateParam, type StandInEvent, type StandInSession } from './stripe-stand-in.ts';

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

test('a parameter Stripe\'s params do not have is refused and kept in violations; an answer field the package\'s types do not have fails tsc', async (t) => {
  const standIn = await startStripeStandIn({ deliver: async () => 200 });
  t.after(() => standIn.close());
  const stripe = new Stripe(standIn.apiKey, { host: standIn.host, port: standIn.port, protocol: 'http', maxNetworkRetries: 0 });
  // the cast is the planted mistake: without it, tsc refuses the misspelt name in the call
  await assert.rejects(stripe.checkout.sessions.create({
    mode: 'payment', success_url: 'http://x/', line_items: [{ quantity: 1, price_data: { currency: 'usd', unit_amount: 1, product_data: { name: 'x' } } }],
    amount_totl: 5,
  } as Stripe.Checkout.SessionCreateParams), (e: Error) => e instanceof Stripe.errors.StripeInvalidRequestError && (e as Stripe.errors.StripeInvalidRequestError).code === 'parameter_unknown');
  assert.deepEqual(standIn.violations, ["Gantry's request POST /v1/checkout/sessions: Received unknown parameter: amount_totl"]);
  await assert.rejects(stripe.checkout.sessions.retrieve('cs_x', { expnd: ['payment_intent'] } as Stripe.Checkout.SessionRetrieveParams), /unknown parameter: expnd/);
  assert.equal(standIn.violations.length, 2, 'a retrieve with a parameter it does not know too');
  await assert.rejects(stripe.checkout.sessions.create({ mode: 'setup', success_url: 'http://x/' }), /payment only/);
  assert.equal(standIn.violations.length, 3, 'a mode the stand-in does not do is refused, not answered as a payment');
  assert.equal(standIn.sessions.size, 0, 'nothing was created');
  await assert.rejects(new Stripe('sk_test_wrong', { host: standIn.host, port: standIn.port, protocol: 'http', maxNetworkRetries: 0 }).checkout.sessions.retrieve('cs_x'),
    (e: Error) => e instanceof Stripe.errors.StripeAuthenticationError);
  assert.equal(unknownCreateParam({ mode: 'payment', line_items: [{ quantity: '1', price_data: { currency: 'usd', unit_amount: '1', product_data: { name: 'x' } } }] }), undefined);
  assert.equal(unknownCreateParam({ line_items: [{ price_data: { product_data: { nam: 'x' } } }] }), 'line_items[0][price_data][product_data][nam]', 'nested too');
  assert.equal(unknownCreateParam({ payment_intent_data: { metadta: {} } }), 'payment_intent_data[metadta]');

  // Answers are checked by tsc, not at run time: each line below must fail the type check
  // (tsc fails if one of them stops failing, so these cannot go stale).
  const session = {
    id: 'cs_1', object: 'checkout.session', mode: 'payment', livemode: false, created: 1, expires_at: 2, amount_subtotal: 1, amount_total: 1,
    currency: 'usd', client_reference_id: null, metadata: {}, payment_intent: null, payment_method_types: ['card'], payment_status: 'paid',
    status: 'complete', success_url: null, cancel_url: null, url: null,
  } satisfies StandInSession;
  const wrongAnswers = [
    // @ts-expect-error a misspelt field name
    { ...session, amount_totl: 1 } satisfies StandInSession,
    // @ts-expect-error an enum value Stripe does not have
    { ...session, payment_status: 'done' } satisfies StandInSession,
    // @ts-expect-error text where Stripe answers an integer
    { ...session, amount_total: '25' } satisfies StandInSession,
    // @ts-expect-error the wrong object name
    { ...session, object: 'session' } satisfies StandInSession,
  ];
  assert.equal(wrongAnswers.length, 4);
});

test('form bodies decode as the client encodes them', () => {
  assert.deepEqual(decodeStripeForm('a=1&b[c]=2&d[0][e]=x%20y&d[1][e]=z&f[]=g'), { a: '1', b: { c: '2' }, d: [{ e: 'x y' }, { e: 'z' }], f: ['g'] });
});
