// Webhooks through HTTP: a local receiver (node:http) that checks every delivery with its
// own Standard Webhooks verification; the secret and its rotation (both signatures for 24
// hours, then only the new one), endpoints CRUD and their validation, retries with backoff
// (a 500, a timeout), redirects not followed, private addresses refused unless allowed, an
// endpoint disabled after 5 days of failures, the delivery log, manual retry, roles; test sends
// and manual retries throttled per endpoint and per team (across replicas on one Redis).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { eq } from 'drizzle-orm';
import { buildTestApp, type TestApp } from '../../../../test/helpers/app.ts';
import { buildApp } from '../../../app.ts';
import { as, call } from '../../../../test/helpers/http.ts';
import { createTeam, type Team } from '../../../../test/helpers/factories.ts';
import { startReceiver, verifyStandardWebhook, type Receiver } from '../../../../test/helpers/webhook-receiver.ts';
import { enqueueWebhook } from '../../../domain/webhooks/enqueue.ts';
import { webhookEndpoints } from '../../../store/schema-webhooks.ts';

const BASE = '/openapi/v1/webhook';
const ALLOW = { GANTRY_WEBHOOK_ALLOW_PRIVATE: '1', GANTRY_WEBHOOK_TIMEOUT_MS: '1000' };

async function withApp(fn: (t: TestApp, team: Team, rx: Receiver) => Promise<void>, env: Record<string, string> = ALLOW): Promise<void> {
  const t = await buildTestApp({ env });
  const rx = await startReceiver();
  try {
    await fn(t, await createTeam(t.app, t.creds.adminToken), rx);
  } finally {
    await rx.close();
    await t.close();
  }
}

/** Runs the deliveries that are due (the recurring jobs of the catalogue are not this test's business). */
const deliver = (t: TestApp) => t.services.jobs.runDue({ names: ['webhook.endpoint', 'webhook.url'] });
const nowS = (t: TestApp) => Math.floor(t.clock.nowMs() / 1000);

async function endpoint(t: TestApp, team: Team, url: string, events = ['batch.completed']): Promise<string> {
  const r = await as(t.app, team.owner.apiKey).post(`${BASE}/endpoints`, { url, events, description: 'test' });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.id;
}

function emit(t: TestApp, team: Team, data: unknown = { id: 'batch_1' }) {
  return enqueueWebhook(t.services.ctx, { teamId: team.userId, event: 'batch.completed', payload: data });
}

async function deliveries(t: TestApp, team: Team, endpointId: string) {
  const r = await as(t.app, team.owner.apiKey).get(`${BASE}/endpoints/${endpointId}/deliveries`);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.deliveries as any[];
}

test('signatures verify with the team secret; after a rotation both for 24 hours, then only the new one', async () => {
  await withApp(async (t, team, rx) => {
    const owner = as(t.app, team.owner.apiKey);
    const s1 = (await owner.get(`${BASE}/secret`)).body.secret as string;
    assert.match(s1, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.equal((await owner.get(`${BASE}/secret`)).body.secret, s1, 'the same secret on every read');
    const id = await endpoint(t, team, rx.url);

    const [first] = await emit(t, team, { id: 'batch_1', status: 'COMPLETED' });
    assert.equal(await deliver(t), 1);
    assert.equal(rx.received.length, 1);
    const r1 = rx.received[0]!;
    assert.equal(r1.headers['webhook-id'], first);
    assert.equal(r1.headers['webhook-timestamp'], String(nowS(t)));
    assert.equal(r1.headers['content-type'], 'application/json');
    assert.deepEqual(JSON.parse(r1.body), { type: 'batch.completed', timestamp: new Date(t.clock.nowMs()).toISOString(), data: { id: 'batch_1', status: 'COMPLETED' } });
    assert.equal(String(r1.headers['webhook-signature']).split(' ').length, 1);
    assert.ok(verifyStandardWebhook(s1, r1.headers, r1.body, nowS(t)));
    assert.ok(!verifyStandardWebhook(s1, r1.headers, r1.body.replace('COMPLETED', 'FAILED'), nowS(t)), 'a changed body does not verify');
    assert.ok(!verifyStandardWebhook(s1, r1.headers, r1.body, nowS(t) + 3600), 'an old timestamp does not verify');

    const rot = await owner.post(`${BASE}/secret/rotate`);
    assert.equal(rot.status, 200);
    const s2 = rot.body.secret as string;
    assert.notEqual(s2, s1);
    assert.equal(rot.body.previous_valid_until, nowS(t) + 86_400);
    assert.equal((await owner.get(`${BASE}/secret`)).body.secret, s2);

    t.clock.advance(23 * 3_600_000);
    await emit(t, team);
    await deliver(t);
    const r2 = rx.received[1]!;
    const sigs = String(r2.headers['webhook-signature']).split(' ');
    assert.equal(sigs.length, 2, 'two signatures during the 24 hours');
    assert.ok(verifyStandardWebhook(s2, r2.headers, r2.body, nowS(t)), 'a receiver with the new secret verifies');
    assert.ok(verifyStandardWebhook(s1, r2.headers, r2.body, nowS(t)), 'a receiver still on the old secret verifies');

    t.clock.advance(3_600_000 + 1000);
    await emit(t, team);
    await deliver(t);
    const r3 = rx.received[2]!;
    assert.equal(String(r3.headers['webhook-signature']).split(' ').length, 1);
    assert.ok(verifyStandardWebhook(s2, r3.headers, r3.body, nowS(t)));
    assert.ok(!verifyStandardWebhook(s1, r3.headers, r3.body, nowS(t)), 'the old secret no longer signs after 24 hours');
    assert.equal((await deliveries(t, team, id)).length, 3);
    // a host name is resolved and the connection pinned to what was checked (here allowed: loopback)
    const port = new URL(rx.url).port;
    await enqueueWebhook(t.services.ctx, { teamId: team.userId, event: 'ASYNC_TASK_RESULT', url: `http://localhost:${port}/by-name`, payload: { ok: true } });
    await deliver(t);
    assert.equal(rx.received.at(-1)!.path, '/by-name');
  });
});

test('a 500 then a 200: retried after the backoff, the delivery log says what happened', async () => {
  await withApp(async (t, team, rx) => {
    const id = await endpoint(t, team, rx.url);
    rx.answer(500, 200);
    const [msg] = await emit(t, team);
    const created = nowS(t);
    await deliver(t);
    let [d] = await deliveries(t, team, id);
    assert.equal(d.id, msg);
    assert.equal(d.state, 'pending');
    assert.equal(d.attempts, 1);
    assert.equal(d.status_code, 500);
    assert.match(d.error, /^HTTP 500: receiver says 500/);
    assert.equal(typeof d.latency_ms, 'number');
    assert.equal(d.last_attempt_at, created);
    assert.equal(d.next_attempt_at, created + 5, 'the first retry 5 s later');
    assert.equal(d.created_at, created);
    assert.ok((await as(t.app, team.owner.apiKey).get(`${BASE}/endpoints/${id}`)).body.failing_since === created);

    assert.equal(await deliver(t), 0, 'not before its time');
    t.clock.advance(5000);
    assert.equal(await deliver(t), 1);
    [d] = await deliveries(t, team, id);
    assert.deepEqual({ state: d.state, attempts: d.attempts, status_code: d.status_code, error: d.error, next: d.next_attempt_at }, {
      state: 'succeeded', attempts: 2, status_code: 200, error: null, next: null,
    });
    assert.equal(rx.received.length, 2);
    assert.equal(rx.received[0]!.headers['webhook-id'], rx.received[1]!.headers['webhook-id'], 'the same id on every attempt');
    assert.equal((await as(t.app, team.owner.apiKey).get(`${BASE}/endpoints/${id}`)).body.failing_since, null, 'a success forgets the failures');
  });
});

test('a receiver that does not answer in time fails the attempt (timeout), and the retry goes on', async () => {
  await withApp(async (t, team, rx) => {
    const id = await endpoint(t, team, rx.url);
    rx.answer('hang', 204);
    await emit(t, team);
    await deliver(t);
    let [d] = await deliveries(t, team, id);
    assert.equal(d.state, 'pending');
    assert.equal(d.status_code, null);
    assert.equal(d.error, 'timed out after 1000 ms');
    assert.ok(d.latency_ms >= 900, `latency ${d.latency_ms}`);
    t.clock.advance(5000);
    await deliver(t);
    [d] = await deliveries(t, team, id);
    assert.equal(d.state, 'succeeded');
    assert.equal(d.status_code, 204);
  });
});

test('redirects are not followed: a 302 is a failure and its target gets nothing', async () => {
  await withApp(async (t, team, rx) => {
    const target = await startReceiver(200);
    try {
      rx.answer({ redirect: target.url });
      const id = await endpoint(t, team, rx.url);
      await emit(t, team);
      await deliver(t);
      const [d] = await deliveries(t, team, id);
      assert.equal(d.status_code, 302);
      assert.match(d.error, /redirects are not followed/);
      assert.equal(d.state, 'pending');
      assert.equal(target.received.length, 0);
    } finally {
      await target.close();
    }
  });
});

test('private addresses are refused unless the operator allows them', async () => {
  await withApp(async (t, team, rx) => {
    const owner = as(t.app, team.owner.apiKey);
    for (const url of [rx.url, 'http://localhost:9/x', 'http://[::1]:9/', 'http://169.254.169.254/latest', 'http://10.0.0.1/', 'http://[::ffff:127.0.0.1]/', 'http://100.64.0.1/']) {
      const r = await owner.post(`${BASE}/endpoints`, { url, events: ['batch.completed'] });
      assert.equal(r.status, 400, url);
      assert.equal(r.body.reason, 'INVALID_ARGUMENT');
      assert.equal(r.body.metadata.field, 'url');
    }
    // a name resolved at send time to a loopback address (a request's own URL is not checked at enqueue)
    const port = new URL(rx.url).port;
    await enqueueWebhook(t.services.ctx, { teamId: team.userId, event: 'ASYNC_TASK_RESULT', url: `http://localhost:${port}/hook`, payload: { x: 1 } });
    await deliver(t);
    assert.equal(rx.received.length, 0, 'nothing reached the receiver');
    const jobs = await as(t.app, t.creds.adminToken).get('/admin/v1/jobs', { name: 'webhook.url' });
    assert.match(jobs.body.jobs[0].lastError, /resolves to (127\.0\.0\.1|::1).*refused/, 'the operator is told the address');

    // a team's endpoint whose name resolves to a loopback address when sent (as after a DNS
    // change): its delivery log says the address is not allowed, never what it is
    const id = await endpoint(t, team, 'https://hooks.example.com/in');
    await t.store.db.update(webhookEndpoints).set({ url: `http://localhost:${port}/hook` }).where(eq(webhookEndpoints.id, id));
    await emit(t, team);
    await deliver(t);
    assert.equal(rx.received.length, 0);
    const [d] = await deliveries(t, team, id);
    assert.equal(d.error, 'localhost: the address is not allowed');
    assert.ok(!/127\.0\.0\.1|::1/.test(JSON.stringify(await deliveries(t, team, id))));
  }, { GANTRY_WEBHOOK_TIMEOUT_MS: '1000' });
});

test('an endpoint failing for 5 days is disabled with the reason; enabling it again forgets the failures', async () => {
  await withApp(async (t, team, rx) => {
    const owner = as(t.app, team.owner.apiKey);
    rx.answer(503);
    const id = await endpoint(t, team, rx.url);
    const start = t.clock.nowMs();
    await emit(t, team);
    let e: any;
    for (let i = 0; i < 20; i++) {
      await deliver(t);
      e = (await owner.get(`${BASE}/endpoints/${id}`)).body;
      if (e.state === 'disabled') break;
      const [d] = await deliveries(t, team, id);
      assert.equal(e.failing_since, Math.floor(start / 1000));
      assert.ok(t.clock.nowMs() - start < 5 * 86_400_000, 'enabled while failing for less than 5 days');
      t.clock.set(d.next_attempt_at * 1000);
    }
    assert.equal(e.state, 'disabled');
    assert.ok(t.clock.nowMs() - start >= 5 * 86_400_000);
    assert.match(e.disabled_reason, /every attempt failed since .* \(5 days\); the last: HTTP 503/);
    assert.equal(e.disabled_at, nowS(t));
    const [d] = await deliveries(t, team, id);
    assert.equal(d.state, 'failed');
    assert.equal(d.next_attempt_at, null);
    assert.equal(d.attempts, rx.received.length);
    // nothing more goes to it
    assert.deepEqual(await emit(t, team), []);
    // enabled again: failures forgotten, events flow
    const on = await owner.put(`${BASE}/endpoints/${id}`, {});
    assert.equal(on.status, 405, 'update is PATCH');
    assert.match(String(on.headers.allow), /PATCH/);
    const en = await call(t.app, 'PATCH', `${BASE}/endpoints/${id}`, { token: team.owner.apiKey, body: { enabled: true } });
    assert.equal(en.status, 200, JSON.stringify(en.body));
    assert.deepEqual({ state: en.body.state, reason: en.body.disabled_reason, since: en.body.failing_since }, { state: 'enabled', reason: null, since: null });
    assert.equal((await emit(t, team)).length, 1);
  });
});

test('manual retry: refused while pending or disabled, then sent again with the same id', async () => {
  await withApp(async (t, team, rx) => {
    const owner = as(t.app, team.owner.apiKey);
    rx.answer(500);
    const id = await endpoint(t, team, rx.url);
    const [msg] = await emit(t, team);
    await deliver(t);
    const retry = () => owner.post(`${BASE}/endpoints/${id}/deliveries/${msg}/retry`);
    let r = await retry();
    assert.equal(r.status, 409, 'pending: its next try is queued');
    assert.equal(r.body.reason, 'CONFLICT');
    // the team disables the endpoint: the pending delivery ends
    const off = await call(t.app, 'PATCH', `${BASE}/endpoints/${id}`, { token: team.owner.apiKey, body: { enabled: false } });
    assert.equal(off.body.state, 'disabled');
    assert.equal(off.body.disabled_reason, 'disabled by the team');
    let [d] = await deliveries(t, team, id);
    assert.equal(d.state, 'failed');
    assert.equal((await retry()).status, 409, 'disabled');
    await call(t.app, 'PATCH', `${BASE}/endpoints/${id}`, { token: team.owner.apiKey, body: { enabled: true } });
    rx.answer(200);
    r = await retry();
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.state, 'pending');
    assert.equal(r.body.next_attempt_at, nowS(t));
    await deliver(t);
    [d] = await deliveries(t, team, id);
    assert.deepEqual({ state: d.state, attempts: d.attempts, status: d.status_code }, { state: 'succeeded', attempts: 2, status: 200 });
    assert.equal(rx.received.at(-1)!.headers['webhook-id'], msg);
    assert.equal((await owner.post(`${BASE}/endpoints/${id}/deliveries/msg_nope/retry`)).status, 404);
  });
});

test('a test send: webhook.test to that endpoint only, signed, in its log with the payload; a failing receiver shows the endpoint failing; refused when disabled', async () => {
  await withApp(async (t, team, rx) => {
    const owner = as(t.app, team.owner.apiKey);
    const secret = (await owner.get(`${BASE}/secret`)).body.secret as string;
    const id = await endpoint(t, team, rx.url, ['batch.failed']);
    const other = await endpoint(t, team, `${rx.url}other`, ['task.succeeded']);
    let r = await owner.post(`${BASE}/endpoints/${id}/test`);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.event, 'webhook.test');
    assert.equal(r.body.state, 'pending');
    const sent = JSON.parse(r.body.payload);
    assert.deepEqual(Object.keys(sent), ['type', 'timestamp', 'data']);
    assert.equal(sent.type, 'webhook.test');
    assert.equal(sent.data.endpoint_id, id);
    assert.equal(await deliver(t), 1, 'one delivery, to this endpoint only (not subscribed to the event, sent anyway)');
    const got = rx.received.at(-1)!;
    assert.equal(got.headers['webhook-id'], r.body.id);
    assert.equal(got.body, r.body.payload, 'the payload shown is the body sent');
    assert.ok(verifyStandardWebhook(secret, got.headers, got.body, nowS(t)));
    let [d] = await deliveries(t, team, id);
    assert.deepEqual({ id: d.id, state: d.state, status: d.status_code, payload: d.payload }, { id: r.body.id, state: 'succeeded', status: 200, payload: r.body.payload });
    assert.equal((await deliveries(t, team, other)).length, 0);

    // a receiver that fails it: the delivery failed at its first attempt, the endpoint failing since then
    rx.answer(503);
    t.clock.advance(1000); // the log is newest first by id, and ids sort by their millisecond
    r = await owner.post(`${BASE}/endpoints/${id}/test`);
    await deliver(t);
    [d] = await deliveries(t, team, id);
    assert.deepEqual({ id: d.id, state: d.state, status: d.status_code }, { id: r.body.id, state: 'pending', status: 503 });
    const e = (await owner.get(`${BASE}/endpoints/${id}`)).body;
    assert.equal(e.state, 'enabled');
    assert.equal(e.failing_since, nowS(t));

    await call(t.app, 'PATCH', `${BASE}/endpoints/${id}`, { token: team.owner.apiKey, body: { enabled: false } });
    r = await owner.post(`${BASE}/endpoints/${id}/test`);
    assert.equal(r.status, 409, 'disabled');
    assert.equal(r.body.reason, 'CONFLICT');
    assert.equal((await owner.post(`${BASE}/endpoints/whe_nope/test`)).status, 404);
    assert.equal((await as(t.app, team.members.Developer.apiKey).post(`${BASE}/endpoints/${id}/test`)).status, 403, 'a Developer may not manage webhooks');
  });
});

const throttled = (r: { status: number; body: any; headers: Record<string, unknown> }, rule: string, limit: number) => {
  assert.equal(r.status, 429, JSON.stringify(r.body));
  assert.equal(r.body.reason, 'RATE_LIMIT_EXCEEDED');
  assert.deepEqual([r.body.metadata.rule, r.body.metadata.limit, r.body.metadata.windowS], [rule, limit, 60]);
  assert.ok(Number(r.headers['retry-after']) >= 1 && Number(r.headers['retry-after']) <= 60, String(r.headers['retry-after']));
  assert.equal(r.body.metadata.retryAfter, Number(r.headers['retry-after']));
};

test('test sends and manual retries are throttled: a burst of 40 gives 5 deliveries then 429 naming the limit; 20 a team; a minute later they pass', async () => {
  await withApp(async (t, team, rx) => {
    const owner = as(t.app, team.owner.apiKey);
    const a = await endpoint(t, team, `${rx.url}a`);
    const burst = await Promise.all(Array.from({ length: 40 }, () => owner.post(`${BASE}/endpoints/${a}/test`)));
    const accepted = burst.filter((r) => r.status === 200);
    assert.equal(accepted.length, 5, JSON.stringify(burst.map((r) => r.status)));
    for (const r of burst.filter((x) => x.status !== 200)) throttled(r, 'webhook_sends_per_endpoint', 5);
    assert.match(burst.find((r) => r.status === 429)!.body.message, /at most 5 sends a minute to one endpoint \(test sends and manual retries\); retry after \d+ s/);
    assert.equal(await deliver(t), 5);
    assert.equal(rx.received.length, 5, 'five POSTs reached the third party, not 40');
    assert.equal((await deliveries(t, team, a)).length, 5, 'a refused send is not logged');
    // a manual retry is a send too: refused before the delivery changes
    const ended = accepted[0]!.body.id as string;
    throttled(await owner.post(`${BASE}/endpoints/${a}/deliveries/${ended}/retry`), 'webhook_sends_per_endpoint', 5);
    assert.equal((await deliveries(t, team, a)).find((d) => d.id === ended).state, 'succeeded');
    // the team's limit: 20 a minute, its endpoints together
    const more = [await endpoint(t, team, `${rx.url}b`), await endpoint(t, team, `${rx.url}c`), await endpoint(t, team, `${rx.url}d`)];
    for (const id of more) for (let i = 0; i < 5; i++) assert.equal((await owner.post(`${BASE}/endpoints/${id}/test`)).status, 200);
    const e = await endpoint(t, team, `${rx.url}e`);
    throttled(await owner.post(`${BASE}/endpoints/${e}/test`), 'webhook_sends_per_team', 20);
    // another team has its own limits
    const other = await createTeam(t.app, t.creds.adminToken);
    const theirs = await endpoint(t, other, `${rx.url}x`);
    assert.equal((await as(t.app, other.owner.apiKey).post(`${BASE}/endpoints/${theirs}/test`)).status, 200);
    // a minute later the window has moved on
    t.clock.advance(60_000);
    assert.equal((await owner.post(`${BASE}/endpoints/${e}/test`)).status, 200);
    assert.equal((await owner.post(`${BASE}/endpoints/${a}/deliveries/${ended}/retry`)).status, 200);
  });
});

test('the send limits hold across replicas on one Redis: sends through two apps count in one window', { skip: process.env.TEST_REDIS_URL ? false : 'needs TEST_REDIS_URL' }, async () => {
  const prefix = `gantry-webhook-sends-${process.pid}-${Date.now()}:`;
  await withApp(async (t, team, rx) => {
    const b = await buildApp({ config: t.config, store: t.store, clock: t.clock, logger: false });
    try {
      const id = await endpoint(t, team, rx.url);
      const send = (app: TestApp['app']) => as(app, team.owner.apiKey).post(`${BASE}/endpoints/${id}/test`);
      for (let i = 0; i < 3; i++) {
        assert.equal((await send(t.app)).status, 200);
        if (i < 2) assert.equal((await send(b.app)).status, 200);
      }
      throttled(await send(b.app), 'webhook_sends_per_endpoint', 5);
      throttled(await send(t.app), 'webhook_sends_per_endpoint', 5);
    } finally {
      await b.app.close();
    }
  }, { ...ALLOW, REDIS_URL: process.env.TEST_REDIS_URL ?? '', GANTRY_REDIS_PREFIX: prefix });
});

test('a request URL delivery: the body as given, signed, up to 5 retries, then failed for the operator to see', async () => {
  await withApp(async (t, team, rx) => {
    rx.answer(500);
    const secret = (await as(t.app, team.owner.apiKey).get(`${BASE}/secret`)).body.secret;
    const body = { event_type: 'ASYNC_TASK_RESULT', payload: { task: { task_id: 't1', status: 'TASK_STATUS_SUCCEED' } } };
    const [msg] = await enqueueWebhook(t.services.ctx, { teamId: team.userId, event: 'ASYNC_TASK_RESULT', url: rx.url, payload: body });
    const waits: number[] = [];
    for (let i = 0; i < 10 && rx.received.length < 6; i++) {
      const before = rx.received.length;
      await deliver(t);
      assert.equal(rx.received.length, before + 1);
      const jobs = await as(t.app, t.creds.adminToken).get('/admin/v1/jobs', { name: 'webhook.url' });
      const j = jobs.body.jobs[0];
      if (j.state === 'failed') break;
      waits.push(j.dueAtMs - t.clock.nowMs());
      t.clock.set(j.dueAtMs);
    }
    assert.deepEqual(waits, [10_000, 20_000, 40_000, 80_000, 160_000], '5 retries, exponential');
    assert.equal(rx.received.length, 6, 'the first attempt and 5 retries');
    const jobs = await as(t.app, t.creds.adminToken).get('/admin/v1/jobs', { name: 'webhook.url' });
    assert.equal(jobs.body.jobs[0].state, 'failed');
    assert.match(jobs.body.jobs[0].lastError, new RegExp(`delivery ${msg}: HTTP 500`));
    const last = rx.received.at(-1)!;
    assert.deepEqual(JSON.parse(last.body), body);
    assert.ok(verifyStandardWebhook(secret, last.headers, last.body, nowS(t)));
  });
});

test('endpoints: create, list, get, update, delete; validation; only Owner and Admin; another team sees nothing', async () => {
  await withApp(async (t, team, rx) => {
    const owner = as(t.app, team.owner.apiKey);
    const admin = as(t.app, team.members.Admin.apiKey);
    const created = await admin.post(`${BASE}/endpoints`, { url: rx.url, events: ['batch.completed', 'instance.state_changed'], description: 'ops' });
    assert.equal(created.status, 200);
    const id = created.body.id;
    assert.match(id, /^whep_/);
    const got = await owner.get(`${BASE}/endpoints/${id}`);
    assert.deepEqual(got.body, {
      id, url: rx.url, events: ['batch.completed', 'instance.state_changed'], description: 'ops', state: 'enabled',
      disabled_reason: null, disabled_at: null, failing_since: null, created_at: nowS(t), updated_at: nowS(t),
    });
    t.clock.advance(1); // newest first: ids made in the same millisecond have no order between them
    const second = await endpoint(t, team, `${rx.url}/2`, ['balance.low']);
    const list = await owner.get(`${BASE}/endpoints`, { pageSize: 1, pageNum: 1 });
    assert.equal(list.body.total, 2);
    assert.deepEqual(list.body.endpoints.map((e: any) => e.id), [second]);
    assert.deepEqual((await owner.get(`${BASE}/endpoints`, { pageSize: 1, pageNumber: 2 })).body.endpoints.map((e: any) => e.id), [id]);

    const up = await call(t.app, 'PATCH', `${BASE}/endpoints/${id}`, { token: team.owner.apiKey, body: { events: ['batch.failed'], description: '' } });
    assert.deepEqual([up.body.events, up.body.description, up.body.url], [['batch.failed'], '', rx.url]);
    // only subscribed endpoints get an event
    assert.equal((await emit(t, team)).length, 0);

    for (const [body, rule] of [
      [{ url: 'ftp://example.com/x', events: ['batch.failed'] }, /http or https/],
      [{ url: 'https://user:pw@example.com/x', events: ['batch.failed'] }, /credentials/],
      [{ url: 'not a url', events: ['batch.failed'] }, /absolute/],
      [{ url: 'https://example.com/x', events: [] }, /./],
      [{ url: 'https://example.com/x', events: ['batch.failed', 'batch.failed'] }, /twice/],
      [{ url: 'https://example.com/x', events: ['nope'] }, /./],
      [{ url: `https://example.com/${'x'.repeat(2100)}`, events: ['batch.failed'] }, /./],
    ] as const) {
      const r = await owner.post(`${BASE}/endpoints`, body);
      assert.equal(r.status, 400, JSON.stringify(body).slice(0, 80));
      assert.equal(r.body.reason, 'INVALID_ARGUMENT');
      assert.match(r.body.message, rule);
    }

    for (const role of ['Developer', 'Basic', 'Billing'] as const) {
      const k = as(t.app, team.members[role].apiKey);
      assert.equal((await k.get(`${BASE}/secret`)).status, 403, role);
      assert.equal((await k.post(`${BASE}/secret/rotate`)).status, 403, role);
      assert.equal((await k.post(`${BASE}/endpoints`, { url: rx.url, events: ['batch.failed'] })).status, 403, role);
      assert.equal((await k.get(`${BASE}/endpoints`)).status, 403, role);
      assert.equal((await k.get(`${BASE}/endpoints/${id}/deliveries`)).status, 403, role);
    }
    assert.equal((await admin.get(`${BASE}/secret`)).status, 200);

    const other = await createTeam(t.app, t.creds.adminToken);
    const o = as(t.app, other.owner.apiKey);
    assert.equal((await o.get(`${BASE}/endpoints/${id}`)).status, 404);
    assert.equal((await o.get(`${BASE}/endpoints/${id}/deliveries`)).status, 404);
    assert.equal((await o.delete(`${BASE}/endpoints/${id}`)).status, 404);
    assert.equal((await o.get(`${BASE}/endpoints`)).body.total, 0);
    assert.notEqual((await o.get(`${BASE}/secret`)).body.secret, (await owner.get(`${BASE}/secret`)).body.secret);

    assert.equal((await owner.delete(`${BASE}/endpoints/${id}`)).status, 200);
    assert.equal((await owner.get(`${BASE}/endpoints/${id}`)).status, 404);
    assert.equal((await owner.get(`${BASE}/endpoints`)).body.total, 1);
  });
});
