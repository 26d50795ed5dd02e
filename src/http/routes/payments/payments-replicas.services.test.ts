// Two replicas on one PostgreSQL receive the same Stripe webhooks at the same moment (Stripe
// retrying while a load balancer spreads the deliveries): each payment is still one ledger
// entry, credited once. The team's row lock and the event's unique id serialize them in the
// database, which PGlite (one connection) would never show.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import { buildApp, closeApp } from '../../../app.ts';
import { buildTestApp } from '../../../../test/helpers/app.ts';
import { createTeam } from '../../../../test/helpers/factories.ts';
import { as } from '../../../../test/helpers/http.ts';
import { startStripeStandIn, stripeSignature } from '../../../../test/helpers/stripe-stand-in.ts';
import type { App } from '../../types.ts';

const skip = !process.env.TEST_DATABASE_URL && 'needs PostgreSQL (TEST_DATABASE_URL; CI has it)';
const WEBHOOK = '/openapi/v1/payments/stripe/webhook';

test('the same webhooks delivered to two replicas at once credit each top-up once', { skip, timeout: 120_000 }, async (t) => {
  const standIn = await startStripeStandIn({ deliver: async () => 200 }); // this test delivers itself, to both replicas
  t.after(() => standIn.close());
  const a = await buildTestApp({
    env: {
      GANTRY_STRIPE_SECRET_KEY: standIn.apiKey, GANTRY_STRIPE_WEBHOOK_SECRET: standIn.webhookSecret,
      GANTRY_STRIPE_API_BASE: `http://${standIn.host}:${standIn.port}`,
    },
  });
  t.after(() => a.close());
  const b = await buildApp({ config: a.config, store: a.store, clock: a.clock, logger: false });
  t.after(() => closeApp(b.app, 5_000));
  const team = await createTeam(a.app, a.creds.adminToken);
  const cash = async () => BigInt((await as(b.app, team.owner.apiKey).get('/openapi/v1/billing/balance/detail')).body.cashBalance);
  const before = await cash();
  const send = (app: App, payload: string) => app.inject({
    method: 'POST', url: WEBHOOK, payload,
    headers: { 'content-type': 'application/json', 'stripe-signature': stripeSignature(payload, standIn.webhookSecret, Math.floor(a.clock.nowMs() / 1000)) },
  });

  const amounts = [60_000, 75_000, 110_000, 90_000, 55_000];
  for (const amount of amounts) {
    const start = await as(a.app, team.owner.apiKey).post('/openapi/v1/payments/topups', { amount });
    assert.equal(start.status, 200, JSON.stringify(start.body));
    const session = [...standIn.sessions.values()].find((s) => s.client_reference_id === start.body.topupId)!;
    const events = standIn.complete(session.id as string);
    // both events, each to both replicas, all at once
    const answers = await Promise.all(events.flatMap((e) => [send(a.app, e.payload), send(b.app, e.payload)]));
    assert.deepEqual(answers.map((r) => r.statusCode), [200, 200, 200, 200], answers.map((r) => r.body).join('\n'));
    const outcomes = answers.map((r) => JSON.parse(r.body).outcome as string);
    assert.equal(outcomes.filter((o) => o === 'credited').length, 1, outcomes.join(','));
  }
  assert.equal(await cash(), before + BigInt(amounts.reduce((x, y) => x + y, 0)));
  const rows = await a.store.db.execute(sql`select count(*)::int as n from ledger_entries where team_id = ${team.userId} and kind = 'topup' and idempotency_key like 'stripe:%'`) as unknown as { rows: { n: number }[] };
  assert.equal(rows.rows[0]!.n, amounts.length);
  assert.deepEqual(standIn.violations, []);
});
