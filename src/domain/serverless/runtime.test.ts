// The serverless runtime end to end on the sim driver: workers boot as real HTTP servers,
// the endpoint URL reaches them, a burst scales out, idle workers scale in, worker-seconds
// are billed, deletion removes the URL. The clock is advanced and reconciler passes are run
// (no sleeping); requests travel through the app over real sockets to the workers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fixture, PRODUCT, PRICE, type Fixture } from '../../../test/helpers/compute-fixture.ts';
import { createTeam } from '../../../test/helpers/factories.ts';
import { newDnsId } from '../../lib/ids.ts';
import { endpoints } from '../../store/schema-serverless.ts';
import type { EndpointSpec } from '../../store/schema-serverless.ts';
import * as q from '../../store/serverless-workers.ts';

function spec(over: Partial<Omit<EndpointSpec, 'workerConfig'>> & { workerConfig?: Partial<EndpointSpec['workerConfig']> } = {}): EndpointSpec {
  const { workerConfig, ...rest } = over;
  return {
    name: 'echo', appName: 'echo', image: { image: 'gantry/sim-worker:1', authId: '', command: '' }, rootfsSize: 20,
    volumeMounts: [], envs: [], port: 8000, productId: PRODUCT, clusterId: 'cls_local',
    policy: { type: 'concurrency', value: 1 },
    healthy: { path: '/health', initialDelay: 0, period: 1, timeout: 2, successThreshold: 1, failureThreshold: 3 },
    ...rest,
    workerConfig: { minNum: 1, maxNum: 3, freeTimeout: 60, maxConcurrent: 1, gpuNum: 1, requestTimeout: 120, cudaVersion: '', ...workerConfig },
  };
}

/** An endpoint row as the management API writes it (create), owned by the fixture's team. */
async function insertEndpoint(f: Fixture, s: EndpointSpec): Promise<string> {
  const now = f.t.clock.nowMs();
  const id = newDnsId('endpoint', now);
  await f.t.store.db.insert(endpoints).values({
    id, teamId: f.team.userId, memberId: null, keyId: null, appName: s.appName, state: 'initializing', stateSinceMs: now, spec: s,
    specVersion: 1, productName: 'RTX 4090 24GB', priceUnits: PRICE, desiredWorkers: s.workerConfig.minNum, nextReconcileAtMs: now,
    createdAt: new Date(now), updatedAt: new Date(now),
  });
  return id;
}

async function pass(f: Fixture, ms = 1000): Promise<void> {
  f.t.clock.advance(ms);
  await f.t.services.serverlessRuntime.reconcile();
}

/** Run passes until `check` holds (each pass advances the clock one second). */
async function until(f: Fixture, what: string, check: () => Promise<boolean>, maxPasses = 120): Promise<void> {
  for (let i = 0; i < maxPasses; i++) {
    if (await check()) return;
    await pass(f);
  }
  const ep = await f.t.store.db.select().from(endpoints);
  assert.fail(`${what}: not reached after ${maxPasses} passes (${JSON.stringify(ep.map((e) => [e.state, e.stateMessage]))})`);
}

const stateOf = async (f: Fixture, id: string) => (await q.findEndpointRow(f.t.store.db, id))?.state;
const live = async (f: Fixture, id: string) => q.listLiveWorkers(f.t.store.db, id);

async function call(f: Fixture, key: string, method: string, path: string, opts: { body?: string; headers?: Record<string, string> } = {}) {
  const res = await f.t.app.inject({
    method: method as 'GET', url: path, headers: { authorization: `Bearer ${key}`, ...opts.headers }, ...(opts.body !== undefined ? { payload: opts.body } : {}),
  });
  return { status: res.statusCode, headers: res.headers, text: res.body, json: () => JSON.parse(res.body) };
}

test('an endpoint boots, serves its URL, scales out under a burst and in when idle, bills worker-seconds, and goes with its URL', async () => {
  const f = await fixture();
  try {
    const key = f.team.owner.apiKey;
    const id = await insertEndpoint(f, spec());
    await until(f, 'serving', async () => (await stateOf(f, id)) === 'serving');
    const [first] = await live(f, id);
    assert.equal(first!.state, 'running');

    // Any path and query reaches the worker with the prefix removed; Authorization stays here.
    const echo = await call(f, key, 'POST', '/serverless/echo/some/path?x=1', { body: '{"hello":"worker"}', headers: { 'content-type': 'application/json' } });
    assert.equal(echo.status, 200, echo.text);
    const e = echo.json();
    assert.equal(e.path, '/some/path');
    assert.deepEqual(e.query, { x: '1' });
    assert.deepEqual(e.body, { hello: 'worker' });
    assert.equal(e.headers.authorization, undefined, 'the caller key is not passed to the worker');
    assert.equal(echo.headers['x-gantry-worker-id'], first!.id);
    assert.ok(Number(echo.headers['x-gantry-queue-ms']) >= 0);

    // The worker's simulated LLM, through the URL.
    const chat = await call(f, key, 'POST', '/serverless/echo/v1/chat/completions', {
      body: JSON.stringify({ model: 'any', messages: [{ role: 'user', content: 'hi' }], max_tokens: 5 }), headers: { 'content-type': 'application/json' },
    });
    assert.equal(chat.status, 200, chat.text);
    assert.equal(chat.json().object, 'chat.completion');

    // Another team's key does not see it.
    const other = await createTeam(f.t.app, f.t.creds.adminToken);
    const foreign = await call(f, other.owner.apiKey, 'GET', '/serverless/echo/');
    assert.equal(foreign.status, 404, foreign.text);
    assert.equal(JSON.parse(foreign.text).reason, 'NOT_FOUND');

    // A burst: 4 slow requests on one worker taking one at a time; 3 wait (> policy value 1).
    const burst = Array.from({ length: 4 }, () => call(f, key, 'GET', '/serverless/echo/slow', { headers: { 'x-sim-delay-ms': '400' } }));
    await until(f, 'scale out', async () => (await live(f, id)).length >= 2);
    const answers = await Promise.all(burst);
    assert.deepEqual(answers.map((a) => a.status), [200, 200, 200, 200]);
    const log = await f.t.store.db.execute(`select line from endpoint_logs where endpoint_id = '${id}' order by seq` as never) as unknown as { rows: { line: string }[] };
    assert.ok(log.rows.some((r) => /^scale out 1→\d: \d+ waiting > 1$/.test(r.line)), JSON.stringify(log.rows));

    // Idle for freeTimeout: back to minNum.
    await until(f, 'scale in', async () => (await live(f, id)).filter((w) => w.state === 'running').length === 1 && (await live(f, id)).length === 1, 200);
    assert.ok((await f.t.store.db.execute(`select line from endpoint_logs where endpoint_id = '${id}' and line like 'scale in %'` as never) as unknown as { rows: unknown[] }).rows.length >= 1);

    // Billing: worker-seconds in the ledger, category serverless, owner the endpoint.
    const charged = await f.t.store.db.execute(
      `select count(*)::int as n, coalesce(sum(amount_micro), 0)::text as s from ledger_entries where owner_id = '${id}' and kind = 'charge' and category = 'serverless'` as never,
    ) as unknown as { rows: { n: number; s: string }[] };
    assert.ok(charged.rows[0]!.n > 0 && BigInt(charged.rows[0]!.s) > 0n, JSON.stringify(charged.rows));

    // Delete: the URL answers 404 at once; the workers stop and the endpoint goes.
    await q.updateEndpointRow(f.t.store.db, id, { state: 'terminating', desiredWorkers: 0 });
    f.t.services.serverlessRuntime.router.forget(id);
    f.t.services.serverlessRuntime.router.forgetName(f.team.userId, 'echo');
    assert.equal((await call(f, key, 'GET', '/serverless/echo/')).status, 404);
    await until(f, 'deleted', async () => (await stateOf(f, id)) === undefined);
  } finally {
    await f.close();
  }
});

test('queue timeout: a request no worker takes within requestTimeout is answered 504; a request running longer is cut', async () => {
  const f = await fixture();
  try {
    const key = f.team.owner.apiKey;
    // Scaled to zero and the clock stands still: the worker the request asks for never boots.
    const cold = await insertEndpoint(f, spec({ appName: 'cold', workerConfig: { minNum: 0, maxNum: 1, requestTimeout: 1 } }));
    await until(f, 'serving at zero', async () => (await stateOf(f, cold)) === 'serving');
    const waiting = await call(f, key, 'GET', '/serverless/cold/next');
    assert.equal(waiting.status, 504, waiting.text);
    assert.equal(JSON.parse(waiting.text).reason, 'GATEWAY_TIMEOUT');
    assert.match(JSON.parse(waiting.text).message, /requestTimeout of 1 s/);
    assert.equal((await live(f, cold)).length, 1, 'the waiting request asked for a worker (scale from zero)');

    // A request that reached a worker and runs past requestTimeout (1.5 s > 1 s) is cut.
    const id = await insertEndpoint(f, spec({ appName: 'tiny', workerConfig: { maxNum: 1, requestTimeout: 1 } }));
    await until(f, 'serving', async () => (await stateOf(f, id)) === 'serving');
    const cut = await call(f, key, 'GET', '/serverless/tiny/busy', { headers: { 'x-sim-delay-ms': '1500' } });
    assert.equal(cut.status, 504, cut.text);
    assert.match(JSON.parse(cut.text).message, /did not answer within the endpoint's requestTimeout of 1 s/);
  } finally {
    await f.close();
  }
});

test('a worker that fails its health checks is replaced; an image that never boots fails the endpoint', async () => {
  const f = await fixture();
  try {
    const id = await insertEndpoint(f, spec({ appName: 'flaky', envs: [{ key: 'SIM_HEALTH_FAIL_AFTER_S', value: '30' }] }));
    await until(f, 'serving', async () => (await stateOf(f, id)) === 'serving');
    const [first] = await live(f, id);
    await until(f, 'replaced', async () => !(await live(f, id)).some((w) => w.id === first!.id));
    const old = await f.t.store.db.select().from((await import('../../store/schema-serverless.ts')).endpointWorkers);
    const failed = old.find((w) => w.id === first!.id)!;
    assert.equal(failed.state, 'failed');
    assert.equal(failed.stateError, 'unhealthy');
    assert.match(failed.stateMessage, /health checks of \/health failed in a row/);
    await until(f, 'a new worker serves', async () => (await live(f, id)).some((w) => w.state === 'running' && w.healthy));

    const bad = await insertEndpoint(f, spec({ appName: 'never', image: { image: 'example.com/team/fail', authId: '', command: '' } }));
    await until(f, 'failed', async () => (await stateOf(f, bad)) === 'failed', 200);
    const row = await q.findEndpointRow(f.t.store.db, bad);
    assert.equal(row!.stateError, 'boot_failed');
    assert.match(row!.stateMessage, /never boots/);
    const refused = await call(f, f.team.owner.apiKey, 'GET', '/serverless/never/');
    assert.equal(refused.status, 503);
    assert.match(JSON.parse(refused.text).message, /failed/);
  } finally {
    await f.close();
  }
});
