// Endpoint metrics through HTTP: requests sent to an endpoint's URL on the sim driver show up
// as answered or failed in GET /endpoint/metrics, with the workers the reconciler saw; the
// range rules name their field; another team's endpoint is not found; old minutes go. The
// clock is advanced and reconciler passes run (no sleeping).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fixture, BASE, PRODUCT, type Fixture } from '../../../../test/helpers/compute-fixture.ts';
import { as } from '../../../../test/helpers/http.ts';
import { createTeam } from '../../../../test/helpers/factories.ts';
import * as q from '../../../store/serverless-workers.ts';

async function createEndpoint(f: Fixture, appName: string, workerConfig: Record<string, number>): Promise<string> {
  const r = await f.owner.post(`${BASE}/endpoint/create`, {
    endpoint: {
      appName, image: { image: 'gantry/sim-worker:1' }, ports: [{ port: 8000 }], products: [{ id: PRODUCT }],
      policy: { type: 'concurrency', value: 1000 }, healthy: { path: '/health', period: 1 },
      workerConfig: { minNum: 1, maxNum: 1, freeTimeout: 60, maxConcurrent: 4, gpuNum: 1, requestTimeout: 120, ...workerConfig },
    },
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.id;
}

async function untilServing(f: Fixture, id: string): Promise<void> {
  for (let i = 0; i < 120; i++) {
    const ep = await q.findEndpointRow(f.t.store.db, id);
    if (ep?.state === 'serving' && (ep.spec.workerConfig.minNum === 0 || (await q.listLiveWorkers(f.t.store.db, id)).some((w) => w.healthy))) return;
    f.t.clock.advance(1000);
    await f.t.services.serverlessRuntime.reconcile();
  }
  assert.fail(`endpoint ${id} never served`);
}

async function send(f: Fixture, appName: string, headers: Record<string, string> = {}): Promise<number> {
  const res = await f.t.app.inject({ method: 'POST', url: `/serverless/${appName}/work`, headers: { authorization: `Bearer ${f.team.owner.apiKey}`, ...headers }, payload: '' });
  return res.statusCode;
}

const sum = (data: { [k: string]: number }[], k: string) => data.reduce((a, p) => a + p[k]!, 0);

test('requests through the URL are counted answered or failed, with the workers the reconciler saw', async () => {
  const f = await fixture();
  try {
    const id = await createEndpoint(f, 'metered', {});
    const startS = Math.floor(f.t.clock.nowMs() / 1000);
    await untilServing(f, id);
    const N = 5;
    for (let i = 0; i < N; i++) assert.equal(await send(f, 'metered'), 200);
    assert.equal(await send(f, 'metered', { 'x-sim-status': '404' }), 404); // answered: the worker's own 4xx
    assert.equal(await send(f, 'metered', { 'x-sim-status': '503' }), 503); // failed: a worker's 5xx
    // a pass in the next minute: there the worker was only ever seen running
    f.t.clock.advance(60_000 - (f.t.clock.nowMs() % 60_000));
    await f.t.services.serverlessRuntime.reconcile();
    const endS = Math.floor(f.t.clock.nowMs() / 1000);

    const r = await f.owner.get(`${BASE}/endpoint/metrics`, { id, startTime: startS, endTime: endS });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.step, 'minute');
    const data = r.body.data as { time: number; [k: string]: number }[];
    assert.equal(data[0]!.time, Math.floor(startS / 60) * 60, 'the first bucket is the minute startTime is in');
    assert.ok(data.every((p, i) => i === 0 || p.time - data[i - 1]!.time === 60), 'one point per minute, none missing');
    assert.equal(sum(data, 'answered'), N + 1);
    assert.equal(sum(data, 'failed'), 1);
    const last = data.at(-1)!;
    assert.deepEqual([last.running, last.desired, last.starting, last.waitingPeak], [1, 1, 0, 0], JSON.stringify(last));
    assert.ok(data.some((p) => p.starting! > 0), 'the worker was seen starting before it ran');

    // by hour: the same counts in fewer points
    const h = await f.owner.get(`${BASE}/endpoint/metrics`, { id, step: 'hour', startTime: startS, endTime: endS });
    assert.equal(h.status, 200, JSON.stringify(h.body));
    assert.deepEqual([sum(h.body.data, 'answered'), sum(h.body.data, 'failed')], [N + 1, 1]);
    assert.ok(h.body.data.length <= 2);

    // a request no worker takes within requestTimeout (scaled to zero, the clock stands still) is failed
    const cold = await createEndpoint(f, 'cold-metered', { minNum: 0, requestTimeout: 1 });
    await untilServing(f, cold);
    assert.equal(await send(f, 'cold-metered'), 504);
    const c = await f.owner.get(`${BASE}/endpoint/metrics`, { id: cold });
    assert.equal(c.status, 200, JSON.stringify(c.body));
    assert.deepEqual([sum(c.body.data, 'answered'), sum(c.body.data, 'failed')], [0, 1]);
    assert.equal(c.body.endTime - c.body.startTime, 3600, 'by default the last hour');

    // another team's endpoint reads as get-endpoint answers it: not found
    const other = as(f.t.app, (await createTeam(f.t.app, f.t.creds.adminToken)).owner.apiKey);
    const foreign = await other.get(`${BASE}/endpoint/metrics`, { id });
    assert.equal(foreign.status, 400, JSON.stringify(foreign.body));
    assert.equal(foreign.body.reason, 'SERVERLESS_ENDPOINT_NOT_FOUND');
    assert.equal((await other.get(`${BASE}/endpoint`, { id })).body.reason, foreign.body.reason);
  } finally {
    await f.close();
  }
});

test('range rules name their field; minutes older than 30 days are swept', async () => {
  const f = await fixture();
  try {
    const id = await createEndpoint(f, 'ranges', {});
    const now = Math.floor(f.t.clock.nowMs() / 1000);
    for (const [query, field, rule] of [
      [{ step: 'second' }, 'step', /one of minute\|hour/],
      [{ startTime: now, endTime: now - 1 }, 'startTime', /at most endTime/],
      [{ startTime: now - 86_401, endTime: now }, 'endTime', /at most 86400 s after startTime with step minute/],
      [{ step: 'hour', startTime: now - 32 * 86_400, endTime: now }, 'endTime', /at most 2678400 s after startTime with step hour/],
    ] as const) {
      const r = await f.owner.get(`${BASE}/endpoint/metrics`, { id, ...query });
      assert.equal(r.status, 400, JSON.stringify(r.body));
      assert.deepEqual([r.body.reason, r.body.metadata.field], ['VALIDATOR_PARAM', field]);
      assert.match(r.body.message, rule);
    }
    assert.equal((await f.owner.get(`${BASE}/endpoint/metrics`, { id, startTime: now - 86_400, endTime: now })).status, 200, 'a day by minute is allowed');

    await untilServing(f, id);
    assert.equal(await send(f, 'ranges'), 200);
    const before = await f.owner.get(`${BASE}/endpoint/metrics`, { id, endTime: now + 600 });
    assert.equal(sum(before.body.data, 'answered'), 1);
    // 31 days later the reconciler's sweep has removed those minutes
    f.t.clock.advance(31 * 86_400_000);
    await f.t.services.serverlessRuntime.reconcile();
    const after = await f.owner.get(`${BASE}/endpoint/metrics`, { id, endTime: now + 600 });
    assert.equal(after.status, 200, JSON.stringify(after.body));
    assert.equal(sum(after.body.data, 'answered'), 0);
    assert.equal(sum(after.body.data, 'running'), 0);
  } finally {
    await f.close();
  }
});
