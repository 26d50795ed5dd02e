// The events other areas announce to team webhook endpoints, through HTTP end to end: a batch
// that completes, fails or expires; an instance's status moves; a serverless endpoint's state
// moves; a budget crossing 80 % and 100 % (once each); the balance falling low (once per fall).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp, type TestApp } from './helpers/app.ts';
import { as } from './helpers/http.ts';
import { charge, createTeam, topup, type Team } from './helpers/factories.ts';
import { chatLine, jsonl, runBatchJobs, uploadInput } from './helpers/batches.ts';
import { startReceiver, verifyStandardWebhook, type Receiver } from './helpers/webhook-receiver.ts';

const GPU = '/gpu-instance/openapi/v1';
const PRODUCT = 'prd_rtx4090_24g';
let t: TestApp;

before(async () => {
  t = await buildTestApp({ env: {
    GANTRY_WEBHOOK_ALLOW_PRIVATE: '1', GANTRY_SIM_TTFT_MS: '0', GANTRY_SIM_TOKENS_PER_S: '1000000', GANTRY_WEBHOOK_BALANCE_LOW_UNITS: '50000',
  } });
  assert.equal((await as(t.app, t.creds.adminToken).put(`/admin/v1/gpu/products/${PRODUCT}/inventory/cls_local`, { totalGpus: 100 })).status, 200);
});
after(() => t.close());

/** A team with money, a receiver, and an endpoint of the team subscribed to `events`. */
async function subscribed(events: string[], units = 10_000_000): Promise<{ team: Team; rx: Receiver; secret: string; close(): Promise<void> }> {
  const team = await createTeam(t.app, t.creds.adminToken);
  if (units) await topup(t.app, t.creds.adminToken, team.userId, units);
  const rx = await startReceiver(200);
  const owner = as(t.app, team.owner.apiKey);
  const r = await owner.post('/openapi/v1/webhook/endpoints', { url: rx.url, events });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const secret = (await owner.get('/openapi/v1/webhook/secret')).body.secret;
  return { team, rx, secret, close: () => rx.close() };
}

const deliver = () => t.services.jobs.runDue({ names: ['webhook.endpoint'] });

/** What the receiver got, verified, as {type, data}. */
function events(s: { rx: Receiver; secret: string }): { type: string; data: any }[] {
  return s.rx.received.map((r) => {
    // the timestamp is the attempt's (the clock may have moved since): the signature is what is checked here
    assert.ok(verifyStandardWebhook(s.secret, r.headers, r.body, Number(r.headers['webhook-timestamp'])), 'signed');
    const body = JSON.parse(r.body);
    return { type: body.type, data: body.data };
  });
}

test('batches: batch.completed with the batch object, batch.failed for a bad file, batch.expired at the window', async () => {
  const s = await subscribed(['batch.completed', 'batch.failed', 'batch.expired']);
  try {
    const owner = as(t.app, s.team.owner.apiKey);
    const good = await owner.post('/openai/v1/batches', { input_file_id: await uploadInput(t, s.team.owner.apiKey, jsonl([chatLine(1)])), endpoint: '/v1/chat/completions', completion_window: '48h' });
    assert.equal(good.status, 200, JSON.stringify(good.body));
    await runBatchJobs(t);
    const bad = await owner.post('/openai/v1/batches', { input_file_id: await uploadInput(t, s.team.owner.apiKey, '{"custom_id": "x"}\n'), endpoint: '/v1/chat/completions', completion_window: '48h' });
    await runBatchJobs(t);
    const late = await owner.post('/openai/v1/batches', { input_file_id: await uploadInput(t, s.team.owner.apiKey, jsonl([chatLine(1)])), endpoint: '/v1/chat/completions', completion_window: '48h' });
    t.clock.advance(49 * 3_600_000); // expires while still validating (its validation never ran)
    await t.services.jobs.runNow('batches.expire');
    await deliver();
    const got = events(s);
    assert.deepEqual(got.map((e) => [e.type, e.data.id, e.data.status]), [
      ['batch.completed', good.body.id, 'COMPLETED'], ['batch.failed', bad.body.id, 'FAILED'], ['batch.expired', late.body.id, 'EXPIRED'],
    ]);
    assert.deepEqual(got[0]!.data.request_counts, { total: 1, completed: 1, failed: 0 });
    assert.ok(got[0]!.data.output_file_id, 'the batch object as GET /batches/{id} shows it');
  } finally {
    await s.close();
  }
});

test('instances: instance.state_changed for each move of its status, from the team operations and the reconciler', async () => {
  const s = await subscribed(['instance.state_changed']);
  try {
    const owner = as(t.app, s.team.owner.apiKey);
    const c = await owner.post(`${GPU}/gpu/instance/create`, { name: 'box', productId: PRODUCT, gpuNum: 1, rootfsSize: 50, imageUrl: 'nvidia/cuda:12.4.0-base-ubuntu22.04', kind: 'gpu' });
    assert.equal(c.status, 200, JSON.stringify(c.body));
    const id = c.body.id;
    for (let i = 0; i < 600; i++) {
      if ((await owner.get(`${GPU}/gpu/instance`, { instanceId: id })).body.status === 'running') break;
      t.clock.advance(500);
      await t.services.compute.reconcile();
    }
    await deliver();
    // deliveries carry no order (they are sent in parallel): the moves are a chain ending at running
    const moves = events(s).map((e) => [e.data.previous_status, e.data.status] as [string, string]);
    assert.ok(moves.length >= 2, JSON.stringify(moves));
    const next = new Map(moves);
    assert.equal(next.size, moves.length, `each status is left once: ${JSON.stringify(moves)}`);
    const first = moves.find(([from]) => !moves.some(([, to]) => to === from))![0];
    const chain = [first];
    while (next.has(chain.at(-1)!)) chain.push(next.get(chain.at(-1)!)!);
    assert.equal(chain.length, moves.length + 1, `one chain: ${JSON.stringify(moves)}`);
    assert.equal(chain.at(-1), 'running');
    const e = events(s).find((x) => x.data.status === 'running')!.data;
    assert.deepEqual(Object.keys(e).sort(), ['changed_at', 'instance_id', 'name', 'previous_status', 'status', 'status_error']);
    assert.equal(e.instance_id, id);
    assert.equal(e.name, 'box');
    assert.equal((await owner.post(`${GPU}/gpu/instance/stop`, { instanceId: id })).status, 200);
    await deliver();
    assert.deepEqual(events(s).at(-1)!.data.previous_status, 'running');
  } finally {
    await s.close();
  }
});

test('serverless endpoints: endpoint.state_changed as it comes to serve and as it is deleted', async () => {
  const s = await subscribed(['endpoint.state_changed']);
  try {
    const owner = as(t.app, s.team.owner.apiKey);
    const ep = await owner.post(`${GPU}/endpoint/create`, {
      endpoint: { image: { image: 'gantry/sim-worker:1' }, ports: [{ port: 8080 }], products: [{ id: PRODUCT }], healthy: { path: '/health', period: 1 }, workerConfig: { minNum: 1, maxNum: 1 } },
    });
    assert.equal(ep.status, 200, JSON.stringify(ep.body));
    for (let i = 0; i < 600; i++) {
      if ((await owner.get(`${GPU}/endpoint`, { id: ep.body.id })).body.endpoint.state.state === 'serving') break;
      t.clock.advance(1000);
      await t.services.serverlessRuntime.reconcile();
    }
    await deliver();
    assert.deepEqual(events(s).map((e) => [e.data.previous_state, e.data.state]), [['initializing', 'serving']]);
    assert.equal(events(s)[0]!.data.endpoint_id, ep.body.id);
    assert.equal((await owner.post(`${GPU}/endpoint/delete`, { name: ep.body.id })).status, 200);
    await deliver();
    assert.deepEqual(events(s).at(-1)!.data.state, 'terminating');
  } finally {
    await s.close();
  }
});

test('budget.threshold: once at 80 % and once at 100 % of a member budget; not again in the same period', async () => {
  const s = await subscribed(['budget.threshold']);
  try {
    const dev = s.team.members.Developer;
    const owner = as(t.app, s.team.owner.apiKey);
    assert.equal((await owner.put('/openapi/v1/user/team/budget', { member_id: dev.memberId, budget_type: 'One-time', budget_limit: 20_000 })).status, 200);
    const watch = async () => {
      await t.services.jobs.runNow('webhooks.watch');
      await deliver();
    };
    await charge(t.app, t.creds.adminToken, s.team.userId, { amount: 15_000, memberId: dev.memberId });
    await watch();
    assert.equal(s.rx.received.length, 0, '75 %: nothing');
    await charge(t.app, t.creds.adminToken, s.team.userId, { amount: 1_000, memberId: dev.memberId });
    await watch();
    await watch();
    assert.deepEqual(events(s).map((e) => e.data.threshold_percent), [80], '80 %: once');
    assert.deepEqual(events(s)[0]!.data, { scope: 'member', member_id: dev.memberId, threshold_percent: 80, budget_type: 'One-time', budget_limit: 20_000, used: 16_000, remaining: 4_000 });
    await charge(t.app, t.creds.adminToken, s.team.userId, { amount: 5_000, memberId: dev.memberId });
    await watch();
    await watch();
    assert.deepEqual(events(s).map((e) => e.data.threshold_percent), [80, 100]);
    assert.equal(events(s)[1]!.data.remaining, -1_000);
  } finally {
    await s.close();
  }
});

test('balance.low: below the operator threshold once per fall; again after the balance recovered and fell', async () => {
  const s = await subscribed(['balance.low'], 60_000);
  try {
    const balance = async () => (await as(t.app, s.team.owner.apiKey).get('/openapi/v1/billing/balance/detail')).body.availableBalance;
    const watch = async () => {
      await t.services.jobs.runNow('webhooks.watch');
      await deliver();
    };
    await watch();
    assert.equal(s.rx.received.length, 0, '60000 is above the threshold (50000)');
    await charge(t.app, t.creds.adminToken, s.team.userId, { amount: 20_000 });
    assert.equal(await balance(), '40000');
    await watch();
    await watch();
    assert.deepEqual(events(s), [{ type: 'balance.low', data: { available_balance: '40000', threshold: '50000' } }], 'once');
    await topup(t.app, t.creds.adminToken, s.team.userId, 100_000);
    await watch();
    assert.equal(s.rx.received.length, 1, 'recovered: nothing to announce');
    await charge(t.app, t.creds.adminToken, s.team.userId, { amount: 110_000 });
    await watch();
    assert.deepEqual(events(s).map((e) => e.data.available_balance), ['40000', '30000'], 'a new fall is announced');
  } finally {
    await s.close();
  }
});
