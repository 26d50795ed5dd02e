// Card top-ups end to end through HTTP: Gantry's stripe client against the local Stripe
// stand-in (test/helpers/stripe-stand-in.ts), which plays the customer paying and delivers
// the signed webhooks to Gantry's route. What must hold: a top-up is credited once, when
// Stripe says it was paid, whatever order, number or timing of events, and nothing is
// written by a webhook that is refused or that fails before its commit.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import { buildTestApp, type TestApp } from '../../../../test/helpers/app.ts';
import { createTeam, type Team } from '../../../../test/helpers/factories.ts';
import { as } from '../../../../test/helpers/http.ts';
import Stripe from 'stripe';
import { startStripeStandIn, stripeSignature, type StandInEvent, type StripeStandIn } from '../../../../test/helpers/stripe-stand-in.ts';

const WEBHOOK = '/openapi/v1/payments/stripe/webhook';
const TOPUPS = '/openapi/v1/payments/topups';

let h: TestApp;
let standIn: StripeStandIn;

before(async () => {
  let app: TestApp | undefined;
  standIn = await startStripeStandIn({
    nowS: () => Math.floor(app!.clock.nowMs() / 1000),
    deliver: async (payload, signature) => (await app!.app.inject({
      method: 'POST', url: WEBHOOK, payload, headers: { 'content-type': 'application/json; charset=utf-8', 'stripe-signature': signature },
    })).statusCode,
  });
  app = await buildTestApp({
    env: {
      GANTRY_STRIPE_SECRET_KEY: standIn.apiKey, GANTRY_STRIPE_WEBHOOK_SECRET: standIn.webhookSecret,
      GANTRY_STRIPE_API_BASE: `http://${standIn.host}:${standIn.port}`, GANTRY_TOPUP_MIN_USD: '5', GANTRY_TOPUP_MAX_USD: '1000',
    },
  });
  h = app;
});
after(async () => {
  await h?.close();
  await standIn?.close();
});

async function cash(team: Team): Promise<bigint> {
  const r = await as(h.app, team.owner.apiKey).get('/openapi/v1/billing/balance/detail');
  assert.equal(r.status, 200);
  return BigInt(r.body.cashBalance);
}

async function ledgerTopups(team: Team): Promise<number> {
  const r = await h.store.db.execute(sql`select count(*)::int as n from ledger_entries where team_id = ${team.userId} and kind = 'topup'`) as unknown as { rows: { n: number }[] };
  return r.rows[0]!.n;
}

/** A member starts a top-up of `units` and Stripe's page is "paid": the events, not yet delivered. */
async function paidTopup(team: Team, units: number): Promise<{ topupId: string; events: StandInEvent[] }> {
  const r = await as(h.app, team.members.Billing.apiKey).post(TOPUPS, { amount: units });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const session = [...standIn.sessions.values()].find((s) => s.client_reference_id === r.body.topupId)!;
  return { topupId: r.body.topupId, events: standIn.complete(session.id as string) };
}

const byType = (events: StandInEvent[], type: string) => events.find((e) => e.type === type)!;

test('without Stripe settings nothing of card top-ups is there, and operators top up as before', async (t) => {
  const plain = await buildTestApp();
  t.after(() => plain.close());
  const owner = as(plain.app, plain.creds.apiKey);
  assert.equal((await owner.post(TOPUPS, { amount: 100000 })).status, 404);
  assert.equal((await owner.get(TOPUPS)).status, 404);
  const hook = await plain.app.inject({ method: 'POST', url: WEBHOOK, payload: '{}', headers: { 'content-type': 'application/json', 'stripe-signature': 't=1,v1=00' } });
  assert.equal(hook.statusCode, 404);
  const topup = await as(plain.app, plain.creds.adminToken).post(`/admin/v1/teams/${plain.creds.userId}/topups`, { amount: 5000, idempotencyKey: 'op-1' });
  assert.equal(topup.status, 200);
});

test('a card top-up end to end: Checkout, the customer pays, the webhook credits cash once, the receipt is listed', async () => {
  const team = await createTeam(h.app, h.creds.adminToken);
  const before = await cash(team);
  const start = await as(h.app, team.owner.apiKey).post(TOPUPS, { amount: 250000 }); // $25
  assert.equal(start.status, 200, JSON.stringify(start.body));
  assert.equal(start.body.state, 'open');
  assert.equal(start.body.amount, '250000');
  assert.match(start.body.checkoutUrl, /^https:\/\/checkout\.stripe\.test\//);
  const session = [...standIn.sessions.values()].find((s) => s.client_reference_id === start.body.topupId)!;
  assert.equal(session.amount_total, 2500, 'charged in cents: $25.00');
  assert.equal(session.currency, 'usd');

  const events = standIn.complete(session.id as string);
  // the customer is back on the console (success_url) and Stripe has the money, but no webhook came yet: nothing is credited on the return alone
  assert.match(session.success_url as string, /\/console\/#\/overview$/);
  assert.equal(await cash(team), before);

  assert.equal(await standIn.deliver(byType(events, 'checkout.session.completed')), 200);
  assert.equal(await cash(team), before + 250000n);
  assert.ok(standIn.calls.includes(`GET /v1/checkout/sessions/${session.id}`), 'Gantry asked Stripe for the session rather than believe the event');
  assert.equal(await standIn.deliver(byType(events, 'payment_intent.succeeded')), 200, 'the second event of the same payment is acknowledged');
  assert.equal(await cash(team), before + 250000n, 'and credits nothing more');
  assert.equal(await ledgerTopups(team), 1);

  const list = await as(h.app, team.members.Billing.apiKey).get(TOPUPS);
  assert.equal(list.status, 200);
  assert.equal(list.body.topups.length, 1);
  assert.equal(list.body.topups[0].state, 'credited');
  assert.equal(list.body.topups[0].checkoutUrl, null);
  assert.match(list.body.topups[0].receiptUrl, /^https:\/\/pay\.stripe\.test\/receipts\//);
  assert.deepEqual(standIn.violations, []);
});

test('only an Owner or Billing member starts a top-up, within the operator\'s range and in whole cents; a refusal writes nothing', async () => {
  const team = await createTeam(h.app, h.creds.adminToken);
  for (const role of ['Admin', 'Developer', 'Basic'] as const) {
    assert.equal((await as(h.app, team.members[role].apiKey).post(TOPUPS, { amount: 100000 })).status, 403, role);
  }
  const billing = as(h.app, team.members.Billing.apiKey);
  const below = await billing.post(TOPUPS, { amount: 49900 }); // $4.99 < $5
  assert.equal(below.status, 400);
  assert.equal(below.body.metadata.field, 'amount');
  assert.equal((await billing.post(TOPUPS, { amount: 10000100 })).status, 400, '$1,000.01 > $1,000');
  const cent = await billing.post(TOPUPS, { amount: 100050 }); // $10.005
  assert.equal(cent.status, 400);
  assert.match(cent.body.message, /whole cents/);
  assert.equal((await billing.post(TOPUPS, { amount: 10000000 })).status, 200, '$1,000 exactly is allowed');
  const list = await billing.get(TOPUPS);
  assert.equal(list.body.topups.length, 1, 'the refused ones left no row');
  assert.equal((await as(h.app, team.members.Admin.apiKey).get(TOPUPS)).status, 200, 'an Admin reads billing');
  assert.equal((await as(h.app, team.members.Developer.apiKey).get(TOPUPS)).status, 403);
});

test('the same events delivered at once, each twice: one ledger entry, cash credited once', async () => {
  const team = await createTeam(h.app, h.creds.adminToken);
  const before = await cash(team);
  const { events } = await paidTopup(team, 120000);
  const statuses = await Promise.all([...events, ...events].map((e) => standIn.deliver(e)));
  assert.deepEqual(statuses, [200, 200, 200, 200]);
  assert.equal(await cash(team), before + 120000n);
  assert.equal(await ledgerTopups(team), 1);
});

test('events in reverse order: payment_intent.succeeded first credits, checkout.session.completed after it is harmless', async () => {
  const team = await createTeam(h.app, h.creds.adminToken);
  const before = await cash(team);
  const { events } = await paidTopup(team, 70000);
  assert.equal(await standIn.deliver(byType(events, 'payment_intent.succeeded')), 200);
  assert.equal(await cash(team), before + 70000n, 'the PaymentIntent names the top-up in its metadata; Stripe is asked for the session');
  assert.equal(await standIn.deliver(byType(events, 'checkout.session.completed')), 200);
  assert.equal(await standIn.deliver(byType(events, 'checkout.session.completed')), 200, 'a replay days later');
  assert.equal(await cash(team), before + 70000n);
  assert.equal(await ledgerTopups(team), 1);
});

test('a webhook whose signature does not hold is refused with 400 and writes nothing', async () => {
  const team = await createTeam(h.app, h.creds.adminToken);
  const before = await cash(team);
  const { events } = await paidTopup(team, 60000);
  const event = byType(events, 'checkout.session.completed');
  assert.equal(await standIn.deliver(event, { secret: 'whsec_not_the_endpoints' }), 400);
  const nowS = Math.floor(h.clock.nowMs() / 1000);
  assert.equal(await standIn.deliver(event, { timestampS: nowS - 301 }), 400, 'older than Stripe\'s five minutes');
  const altered = await h.app.inject({ method: 'POST', url: WEBHOOK, payload: event.payload.replace('"usd"', '"eur"'), headers: { 'content-type': 'application/json', 'stripe-signature': 'placeholder' } });
  assert.equal(altered.statusCode, 400);
  const unsigned = await h.app.inject({ method: 'POST', url: WEBHOOK, payload: event.payload, headers: { 'content-type': 'application/json' } });
  assert.equal(unsigned.statusCode, 400);
  assert.equal(JSON.parse(unsigned.body).metadata.field, 'stripe-signature');
  assert.equal(await cash(team), before);
  assert.equal(await ledgerTopups(team), 0);
  assert.equal((await as(h.app, team.owner.apiKey).get(TOPUPS)).body.topups[0].state, 'open');
  // the refused deliveries recorded nothing: the genuine one still credits
  assert.equal(await standIn.deliver(event), 200);
  assert.equal(await cash(team), before + 60000n);
});

test('a crash between Stripe\'s event and the ledger write: the webhook fails before its commit, and Stripe\'s retry credits once', async (t) => {
  const team = await createTeam(h.app, h.creds.adminToken);
  const before = await cash(team);
  const { events } = await paidTopup(team, 90000);
  // The ledger write fails inside the credit's transaction, as a store that died mid-way would
  // (a trigger on the real table: nothing in Gantry knows it is being tested).
  await h.store.db.execute(sql.raw('create function gantry_test_fail_ledger() returns trigger language plpgsql as $$ begin raise exception \'the store went away\'; end $$'));
  await h.store.db.execute(sql.raw('create trigger gantry_test_fail_ledger before insert on ledger_entries for each row execute function gantry_test_fail_ledger()'));
  let dropped = false;
  const drop = async () => {
    if (dropped) return;
    dropped = true;
    await h.store.db.execute(sql.raw('drop trigger gantry_test_fail_ledger on ledger_entries'));
    await h.store.db.execute(sql.raw('drop function gantry_test_fail_ledger()'));
  };
  t.after(drop);
  const event = byType(events, 'checkout.session.completed');
  assert.equal(await standIn.deliver(event), 500, 'a 5xx: Stripe retries it');
  assert.equal(await cash(team), before);
  assert.equal((await as(h.app, team.owner.apiKey).get(TOPUPS)).body.topups[0].state, 'open', 'nothing of the credit was written, the event included');
  await drop();
  assert.equal(await standIn.deliver(event), 200, 'Stripe\'s retry of the same event');
  assert.equal(await standIn.deliver(event), 200);
  assert.equal(await standIn.deliver(byType(events, 'payment_intent.succeeded')), 200);
  assert.equal(await cash(team), before + 90000n);
  assert.equal(await ledgerTopups(team), 1);
});

test('card top-ups earn tiers like any top-up: under $50 in the month stays T1, $50 in the month is T2', async () => {
  const team = await createTeam(h.app, h.creds.adminToken);
  const tier = async () => (await as(h.app, h.creds.adminToken).get(`/admin/v1/teams/${team.userId}`)).body.effectiveTier as string;
  assert.equal(await tier(), 'T1');
  const first = await paidTopup(team, 450_000); // $45
  assert.equal(await standIn.deliver(byType(first.events, 'checkout.session.completed')), 200);
  assert.equal(await tier(), 'T1', '$45 in the month');
  const second = await paidTopup(team, 50_000); // $5 more: $50 in the month
  assert.equal(await standIn.deliver(byType(second.events, 'payment_intent.succeeded')), 200);
  assert.equal(await tier(), 'T2');
});

test('a payment that is not one of Gantry\'s top-ups is acknowledged and credits nothing', async () => {
  const team = await createTeam(h.app, h.creds.adminToken);
  const before = await cash(team);
  // another integration on the same Stripe account: a session Gantry never opened, no top-up in its metadata
  const stripe = new Stripe(standIn.apiKey, { host: standIn.host, port: standIn.port, protocol: 'http', maxNetworkRetries: 0 });
  const foreign = await stripe.checkout.sessions.create({
    mode: 'payment', success_url: 'https://shop.example/', client_reference_id: team.userId,
    line_items: [{ quantity: 1, price_data: { currency: 'usd', unit_amount: 9900, product_data: { name: 'a T-shirt' } } }],
  });
  for (const e of standIn.complete(foreign.id)) {
    const r = await h.app.inject({ method: 'POST', url: WEBHOOK, payload: e.payload, headers: { 'content-type': 'application/json', 'stripe-signature': stripeSignature(e.payload, standIn.webhookSecret, Math.floor(h.clock.nowMs() / 1000)) } });
    assert.equal(r.statusCode, 200);
    assert.equal(JSON.parse(r.body).outcome, 'ignored');
  }
  assert.equal(await cash(team), before);
});

test('while Stripe cannot be reached a top-up is refused with 503 naming it, and the top-up is listed as failed', async (t) => {
  const down = await startStripeStandIn({ deliver: async () => 200 });
  const port = down.port;
  await down.close(); // nothing listens there any more
  const app = await buildTestApp({
    env: { GANTRY_STRIPE_SECRET_KEY: down.apiKey, GANTRY_STRIPE_WEBHOOK_SECRET: down.webhookSecret, GANTRY_STRIPE_API_BASE: `http://127.0.0.1:${port}` },
  });
  t.after(() => app.close());
  const r = await as(app.app, app.creds.apiKey).post(TOPUPS, { amount: 100000 });
  assert.equal(r.status, 503, JSON.stringify(r.body));
  assert.equal(r.body.metadata.dependency, 'stripe');
  const list = await as(app.app, app.creds.apiKey).get(TOPUPS);
  assert.equal(list.body.topups[0].state, 'failed', 'the customer never got a page to pay on');
});

test('a payment that settles later: the session completes unpaid (nothing credited), and its async_payment_succeeded credits once', async () => {
  const team = await createTeam(h.app, h.creds.adminToken);
  const before = await cash(team);
  const r = await as(h.app, team.owner.apiKey).post(TOPUPS, { amount: 80000 });
  const session = [...standIn.sessions.values()].find((s) => s.client_reference_id === r.body.topupId)!;
  const [completed] = standIn.complete(session.id as string, { delayed: true });
  const deliver = async (e: StandInEvent) => {
    const res = await h.app.inject({ method: 'POST', url: WEBHOOK, payload: e.payload, headers: { 'content-type': 'application/json', 'stripe-signature': stripeSignature(e.payload, standIn.webhookSecret, Math.floor(h.clock.nowMs() / 1000)) } });
    assert.equal(res.statusCode, 200, res.body);
    return JSON.parse(res.body).outcome as string;
  };
  assert.equal(await deliver(completed!), 'unpaid');
  assert.equal(await cash(team), before, 'a completed session is not money until Stripe says paid');
  assert.equal((await as(h.app, team.owner.apiKey).get(TOPUPS)).body.topups[0].state, 'open');
  const settled = standIn.settle(session.id as string);
  assert.equal(await deliver(byType(settled, 'checkout.session.async_payment_succeeded')), 'credited');
  assert.equal(await deliver(byType(settled, 'payment_intent.succeeded')), 'duplicate');
  assert.equal(await deliver(completed!), 'duplicate', 'the early event replayed now finds it paid and credited');
  assert.equal(await cash(team), before + 80000n);
  assert.equal(await ledgerTopups(team), 1);
});
