// The serverless runtime end to end on the sim driver: workers boot as real HTTP servers,
// the endpoint URL reaches them, a burst scales out, idle workers scale in, worker-seconds
// are billed, deletion removes the URL. The clock is advanced and reconciler passes are run
// (no sleeping); requests travel through the app over real sockets to the workers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fixture, BASE, PRODUCT, type Fixture } from '../../../test/helpers/compute-fixture.ts';
import { createTeam } from '../../../test/helpers/factories.ts';
import { endpoints } from '../../store/schema-serverless.ts';
import * as q from '../../store/serverless-workers.ts';

interface EndpointOver {
  appName: string;
  image?: string;
  envs?: { key: string; value: string }[];
  workerConfig?: Partial<{ minNum: number; maxNum: number; freeTimeout: number; maxConcurrent: number; requestTimeout: number }>;
}

/** Create an endpoint the way a tenant does (POST /endpoint/create); its id. */
async function createEndpoint(f: Fixture, over: EndpointOver): Promise<string> {
  const body = {
    endpoint: {
      name: over.appName, appName: over.appName, image: { image: over.image ?? 'gantry/sim-worker:1' },
      ports: [{ port: 8000 }], products: [{ id: PRODUCT }], envs: over.envs ?? [],
      policy: { type: 'concurrency', value: 1 },
      healthy: { path: '/health', initialDelay: 0, period: 1, timeout: 2, successThreshold: 1, failureThreshold: 3 },
      workerConfig: { minNum: 1, maxNum: 3, freeTimeout: 60, maxConcurrent: 1, gpuNum: 1, requestTimeout: 120, ...over.workerConfig },
    },
  };
  const r = await call(f, f.team.owner.apiKey, 'POST', `${BASE}/endpoint/create`, { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
  assert.equal(r.status, 200, r.text);
  return r.json().id as string;
}

async function pass(f: Fixture, ms = 1000): Promise<void> {
  f.t.clock.advance(ms);
  await f.t.services.serverlessRuntime.reconcile();
}

/** Run passes until `check` holds (each pass advances the clock `stepMs`, a second by default). */
async function until(f: Fixture, what: string, check: () => Promise<boolean>, maxPasses = 120, stepMs = 1000): Promise<void> {
  for (let i = 0; i < maxPasses; i++) {
    if (await check()) return;
    await pass(f, stepMs);
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
    const id = await createEndpoint(f, { appName: 'echo' });
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

    // Billing: worker-seconds in the usage bills, category serverless, owner the endpoint; the
    // creating key's bills carry them too (its budget counts them).
    const nowS = Math.floor(f.t.clock.nowMs() / 1000);
    const window = { cycleType: 'Day', startTime: nowS - 86_400, endTime: nowS + 60 };
    const bills = await f.owner.get('/openapi/v1/billing/bill/list', { ...window, productCategory: 'serverless', ownerId: id });
    assert.equal(bills.status, 200, JSON.stringify(bills.body));
    const billed = bills.body.bills.reduce((a: bigint, b: { amount: string }) => a + BigInt(b.amount), 0n);
    assert.ok(billed > 0n, JSON.stringify(bills.body));
    assert.ok(bills.body.bills.every((b: { ownerID: string }) => b.ownerID === id));
    const keyBills = await f.owner.get('/openapi/v1/billing/apikey/bill/list', { ...window, category: 'serverless' });
    assert.equal(keyBills.status, 200, JSON.stringify(keyBills.body));
    assert.equal(keyBills.body.bills.reduce((a: bigint, b: { amount: string }) => a + BigInt(b.amount), 0n), billed);

    // Delete: the URL answers 404 at once; the workers stop and the endpoint goes.
    const del = await call(f, key, 'POST', `${BASE}/endpoint/delete`, { body: JSON.stringify({ name: id }), headers: { 'content-type': 'application/json' } });
    assert.equal(del.status, 200, del.text);
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
    const cold = await createEndpoint(f, { appName: 'cold', workerConfig: { minNum: 0, maxNum: 1, requestTimeout: 1 } });
    await until(f, 'serving at zero', async () => (await stateOf(f, cold)) === 'serving');
    const waiting = await call(f, key, 'GET', '/serverless/cold/next');
    assert.equal(waiting.status, 504, waiting.text);
    assert.equal(JSON.parse(waiting.text).reason, 'GATEWAY_TIMEOUT');
    assert.match(JSON.parse(waiting.text).message, /requestTimeout of 1 s/);
    assert.equal((await live(f, cold)).length, 1, 'the waiting request asked for a worker (scale from zero)');

    // A request that reached a worker and runs past requestTimeout (1.5 s > 1 s) is cut.
    const id = await createEndpoint(f, { appName: 'tiny', workerConfig: { maxNum: 1, requestTimeout: 1 } });
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
    const id = await createEndpoint(f, { appName: 'flaky', envs: [{ key: 'SIM_HEALTH_FAIL_AFTER_S', value: '30' }] });
    await until(f, 'serving', async () => (await stateOf(f, id)) === 'serving');
    const [first] = await live(f, id);
    await until(f, 'replaced', async () => !(await live(f, id)).some((w) => w.id === first!.id));
    const old = await f.t.store.db.select().from((await import('../../store/schema-serverless.ts')).endpointWorkers);
    const failed = old.find((w) => w.id === first!.id)!;
    assert.equal(failed.state, 'failed');
    assert.equal(failed.stateError, 'unhealthy');
    assert.match(failed.stateMessage, /health checks of \/health failed in a row/);
    await until(f, 'a new worker serves', async () => (await live(f, id)).some((w) => w.state === 'running' && w.healthy));

    const bad = await createEndpoint(f, { appName: 'never', image: 'example.com/team/fail' });
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

test('update under steady traffic is rolling: new workers serve before old ones drain, and no request fails', async () => {
  const f = await fixture();
  try {
    const key = f.team.owner.apiKey;
    const id = await createEndpoint(f, { appName: 'roll', workerConfig: { minNum: 2, maxNum: 2, maxConcurrent: 4 } });
    await until(f, 'serving on two workers', async () => (await live(f, id)).filter((w) => w.state === 'running' && w.healthy).length === 2);
    const before = new Set((await live(f, id)).map((w) => w.id));

    // Four clients, each sending one request after another until told to stop.
    let stop = false;
    const statuses: number[] = [];
    const servedBy = new Set<string>();
    const client = async () => {
      while (!stop) {
        const r = await call(f, key, 'GET', '/serverless/roll/work', { headers: { 'x-sim-delay-ms': '15' } });
        statuses.push(r.status);
        servedBy.add(String(r.headers['x-gantry-worker-id']));
        if (r.status !== 200) return;
      }
    };
    const clients = Array.from({ length: 4 }, client);

    const upd = await call(f, key, 'POST', `${BASE}/endpoint/update`, {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        id, image: { image: 'gantry/sim-worker:2' }, ports: [{ port: 8000 }], policy: { type: 'concurrency', value: 1 },
        envs: [{ key: 'RELEASE', value: '2' }],
        healthy: { path: '/health', initialDelay: 0, period: 1, timeout: 2, successThreshold: 1, failureThreshold: 3 },
        workerConfig: { minNum: 2, maxNum: 2, freeTimeout: 60, maxConcurrent: 4, gpuNum: 1, requestTimeout: 120 },
      }),
    });
    assert.equal(upd.status, 200, upd.text);
    await until(f, 'only new workers', async () => {
      const ws = await live(f, id);
      return ws.length === 2 && ws.every((w) => !before.has(w.id) && w.state === 'running' && w.healthy);
    }, 200);
    // a few more requests on the new workers only, then the clients stop
    const seen = statuses.length;
    await until(f, 'traffic on the new workers', async () => statuses.length >= seen + 8);
    stop = true;
    await Promise.all(clients);

    assert.ok(statuses.length > 20, `steady traffic: ${statuses.length} requests`);
    assert.deepEqual(statuses.filter((s) => s !== 200), [], 'no request failed during the update');
    assert.ok([...servedBy].some((w) => !before.has(w)), 'new workers served');
    assert.ok([...servedBy].some((w) => before.has(w)), 'old workers served before they drained');
  } finally {
    await f.close();
  }
});

test('workers take GPUs from the inventory: no more workers than free GPUs, and instances see them taken', async () => {
  const f = await fixture();
  try {
    const setInventory = async (totalGpus: number) => {
      const r = await f.admin.put(`/admin/v1/gpu/products/${PRODUCT}/inventory/cls_local`, { totalGpus });
      assert.equal(r.status, 200, JSON.stringify(r.body));
    };
    await setInventory(2);
    const id = await createEndpoint(f, { appName: 'gpus', workerConfig: { minNum: 3, maxNum: 3 } });
    await until(f, 'two workers running', async () => (await live(f, id)).filter((w) => w.state === 'running').length === 2);
    for (let i = 0; i < 3; i++) await pass(f); // more passes: still no third worker
    assert.equal((await live(f, id)).length, 2);
    const lines = (await f.t.store.db.execute(`select line from endpoint_logs where endpoint_id = '${id}' and line like 'scale out refused:%'` as never) as unknown as { rows: { line: string }[] }).rows;
    assert.equal(lines.length, 1, `the refusal is logged once while it lasts: ${JSON.stringify(lines)}`);
    assert.match(lines[0]!.line, /not enough free .* GPUs in cluster cls_local .* \(1 needed, 0 free\)/);

    // an instance finds no free GPU either
    const inst = await f.owner.post(`${BASE}/gpu/instance/create`, { name: 'x', productId: PRODUCT, gpuNum: 1, rootfsSize: 50, imageUrl: 'nvidia/cuda:12.4.0-base-ubuntu22.04', kind: 'gpu' });
    assert.equal(inst.status, 400, JSON.stringify(inst.body));
    assert.equal(inst.body.reason, 'INSUFFICIENT_RESOURCE');

    // capacity comes back: the third worker starts
    await setInventory(3);
    await until(f, 'three workers', async () => (await live(f, id)).length === 3);
  } finally {
    await f.close();
  }
});

test('an account that runs out of money has its endpoint scaled to 0 and stopped, saying why', async () => {
  // 4000 units: the first worker's hour (3500) fits, a little more than an hour of GPU time in all
  const f = await fixture({ topupUnits: 4000 });
  try {
    const id = await createEndpoint(f, { appName: 'broke', workerConfig: { minNum: 1, maxNum: 1 } });
    await until(f, 'serving', async () => (await stateOf(f, id)) === 'serving');
    await until(f, 'stopped', async () => (await stateOf(f, id)) === 'stopped', 200, 60_000); // a minute a pass
    const row = await q.findEndpointRow(f.t.store.db, id);
    assert.equal(row!.stateError, 'balance_not_enough');
    assert.match(row!.stateMessage, /balance ran out/);
    await until(f, 'no worker left', async () => (await live(f, id)).length === 0);
    const refused = await call(f, f.team.owner.apiKey, 'GET', '/serverless/broke/');
    assert.equal(refused.status, 503);
    assert.match(JSON.parse(refused.text).message, /stopped: scaled to 0 because the account balance ran out/);
  } finally {
    await f.close();
  }
});

test('the queue is bounded (GANTRY_SERVERLESS_QUEUE_LIMIT): a request beyond it is answered 429 at once', async () => {
  const f = await fixture({ env: { GANTRY_SERVERLESS_QUEUE_LIMIT: '2' } });
  try {
    const key = f.team.owner.apiKey;
    // scaled to zero on a clock that stands still: requests wait (and time out after 1 s)
    await createEndpoint(f, { appName: 'full', workerConfig: { minNum: 0, maxNum: 1, requestTimeout: 1 } });
    const answers = await Promise.all(['a', 'b', 'c'].map((p) => call(f, key, 'GET', `/serverless/full/${p}`)));
    assert.deepEqual(answers.map((r) => r.status).sort(), [429, 504, 504], 'two wait (and time out), the third is refused');
    const extra = JSON.parse(answers.find((r) => r.status === 429)!.text);
    assert.equal(extra.reason, 'RATE_LIMIT_EXCEEDED');
    assert.match(extra.message, /2 requests waiting, the most it keeps/);
  } finally {
    await f.close();
  }
});
