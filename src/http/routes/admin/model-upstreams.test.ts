// The operator's model upstreams through the admin API: a key stored sealed, set and rotated
// with no restart and never shown again; the check a save makes of each HTTP upstream.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { once } from 'node:events';
import { PassThrough } from 'node:stream';
import { sql } from 'drizzle-orm';
import { buildTestApp } from '../../../../test/helpers/app.ts';
import { as } from '../../../../test/helpers/http.ts';
import { createTeam, topup } from '../../../../test/helpers/factories.ts';
import { until } from '../../../../test/helpers/wait.ts';
import { linkReplicas } from '../../../../test/helpers/change-hub.ts';
import { buildApp } from '../../../app.ts';

interface Upstream {
  server: Server;
  url: string;
  /** the Authorization header of each call, by path */
  seen: Array<{ method: string; path: string; auth: string | undefined }>;
  /** what GET /models answers: the ids listed, or a status with a message */
  models: { ids: string[]; status?: number; message?: string };
  /** the key it accepts (undefined: any); a chat call with another is refused 401, quoting it as OpenAI does */
  key: string | undefined;
  /** a status chat calls are answered with instead of a completion (0: none) */
  chatFails: number;
}

/** An OpenAI-compatible server on 127.0.0.1:0 that wants a key and records who called. */
async function upstream(): Promise<Upstream> {
  const u: Upstream = { server: undefined as never, url: '', seen: [], models: { ids: ['real-name'] }, key: undefined, chatFails: 0 };
  u.server = createServer(async (req, res) => {
    let raw = '';
    for await (const c of req) raw += c;
    const auth = req.headers.authorization;
    u.seen.push({ method: req.method!, path: req.url!, auth });
    const json = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    const offered = auth?.replace(/^Bearer /, '');
    if (u.key !== undefined && offered !== u.key) return json(401, { error: { message: `Incorrect API key provided: ${offered ?? 'none'}` } });
    if (req.method === 'GET' && req.url === '/v1/models') {
      if (u.models.status) return json(u.models.status, { error: { message: u.models.message ?? 'no' } });
      return json(200, { object: 'list', data: u.models.ids.map((id) => ({ id, object: 'model', owned_by: 'x', created: 1 })) });
    }
    if (u.chatFails) return json(u.chatFails, { error: { message: `the server is on fire (${u.chatFails})` } });
    const body = JSON.parse(raw);
    json(200, {
      id: 'c1', object: 'chat.completion', created: 1, model: body.model,
      choices: [{ index: 0, message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 },
    });
  });
  u.server.listen(0, '127.0.0.1');
  await once(u.server, 'listening');
  u.url = `http://127.0.0.1:${(u.server.address() as { port: number }).port}/v1`;
  return u;
}

async function closedPort(): Promise<number> {
  const s = createServer();
  s.listen(0, '127.0.0.1');
  await once(s, 'listening');
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}

const model = (id: string, upstream: unknown) => ({
  id, title: id, contextSize: 8192, inputTokenPricePerM: 1000, outputTokenPricePerM: 2000, status: 'available', upstream,
});
const path = (id: string) => `/admin/v1/models/${encodeURIComponent(id)}/upstream-key`;
const messages = [{ role: 'user', content: 'hello' }];

test('an upstream key set through the admin API is sealed, used from the next call, rotated without a restart, and never shown or logged', async () => {
  const up = await upstream();
  const logs: string[] = [];
  const logStream = new PassThrough();
  logStream.on('data', (b: Buffer) => logs.push(b.toString('utf8')));
  const t = await buildTestApp({ logStream });
  const first = 'sk-proj-first-0123456789abcdefXYZ';
  const second = 'sk-proj-second-9876543210fedcbaQRS';
  try {
    const admin = as(t.app, t.creds.adminToken);
    up.key = first;
    const saved = await admin.post('/admin/v1/models', model('acme/remote', { url: up.url, model: 'real-name' }));
    assert.equal(saved.status, 200, JSON.stringify(saved.body));
    assert.deepEqual(saved.body.upstreamKey, { set: false, setAt: null });
    assert.equal(saved.body.check.ok, false, 'no key yet: the upstream refuses it, and the save says so');
    assert.equal(saved.body.check.upstreams[0].keyAccepted, false);

    const team = await createTeam(t.app, t.creds.adminToken);
    await topup(t.app, t.creds.adminToken, team.userId, 100000);
    const tenant = as(t.app, team.owner.apiKey);
    const refused = await tenant.post('/openai/v1/chat/completions', { model: 'acme/remote', messages, max_tokens: 5 });
    assert.equal(refused.status, 503, 'without its key the upstream refuses the call');

    const set = await admin.put(path('acme/remote'), { apiKey: first });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    assert.equal(set.body.upstreamKey.set, true);
    assert.equal(set.body.upstreamKey.setAt, Math.floor(t.clock.nowMs() / 1000));
    const ok = await tenant.post('/openai/v1/chat/completions', { model: 'acme/remote', messages, max_tokens: 5 });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    assert.equal(up.seen.at(-1)!.auth, `Bearer ${first}`, 'the next call carries the stored key');

    // Stored sealed: the column holds neither key, and opens to the key with the store's secret.
    const row = async () => ((await t.store.db.execute(sql`select upstream_key_sealed from llm_models where id = 'acme/remote'`)) as unknown as { rows: Array<{ upstream_key_sealed: string | null }> }).rows[0]!.upstream_key_sealed;
    const sealed = await row();
    assert.ok(sealed && !sealed.includes(first) && !Buffer.from(sealed, 'base64').toString('latin1').includes(first));
    assert.equal(t.services.secrets.open(sealed), first);

    // Rotation: the upstream now wants the second key; the old one is refused from the next call.
    t.clock.advance(60_000);
    up.key = second;
    const stale = await tenant.post('/openai/v1/chat/completions', { model: 'acme/remote', messages, max_tokens: 5 });
    assert.equal(stale.status, 503, 'the upstream refuses the old key (and quotes it)');
    const rotated = await admin.put(path('acme/remote'), { apiKey: second });
    assert.equal(rotated.body.upstreamKey.setAt, Math.floor(t.clock.nowMs() / 1000), 'setAt is the last set');
    assert.notEqual(await row(), sealed);
    const after = await tenant.post('/openai/v1/chat/completions', { model: 'acme/remote', messages, max_tokens: 5 });
    assert.equal(after.status, 200);
    assert.equal(up.seen.at(-1)!.auth, `Bearer ${second}`, 'the rotated key is used from the next call');

    // A save of the model keeps its key, and checks the upstream with it.
    const resaved = await admin.post('/admin/v1/models', model('acme/remote', { url: up.url, model: 'real-name' }));
    assert.equal(resaved.body.upstreamKey.set, true);
    assert.equal(resaved.body.check.ok, true, JSON.stringify(resaved.body.check));

    // Removed: calls go without a key again.
    const cleared = await t.app.inject({ method: 'DELETE', url: path('acme/remote'), headers: { authorization: `Bearer ${t.creds.adminToken}` } });
    assert.equal(cleared.statusCode, 200);
    assert.deepEqual(cleared.json().upstreamKey, { set: false, setAt: null });
    up.key = undefined;
    await tenant.post('/openai/v1/chat/completions', { model: 'acme/remote', messages, max_tokens: 5 });
    assert.equal(up.seen.at(-1)!.auth, undefined);

    const list = await admin.get('/admin/v1/models');
    const answers = JSON.stringify([saved.body, set.body, rotated.body, resaved.body, cleared.json(), list.body, stale.body, refused.body]);
    for (const key of [first, second]) {
      assert.ok(!answers.includes(key), 'no answer carries the key');
      assert.ok(!logs.join('').includes(key), 'no log line carries the key, not even the upstream quoting it');
    }
    assert.ok(logs.join('').includes('upstream failed'), 'the log was captured');
  } finally {
    await t.close();
    up.server.close();
  }
});

test('an upstream key: the named apiKeyEnv wins for its server, the stored key serves the others; unknown models and malformed keys are refused', async () => {
  const withEnv = await upstream();
  const plain = await upstream();
  const t = await buildTestApp({ env: { MODEL_UPSTREAMS_TEST_KEY: 'from-the-environment' } });
  try {
    const admin = as(t.app, t.creds.adminToken);
    const dead = await closedPort();
    // a failover list: the dead server first, so calls go to the second, then each on its own
    await admin.post('/admin/v1/models?check=off', model('acme/env', { url: withEnv.url, model: 'real-name', apiKeyEnv: 'MODEL_UPSTREAMS_TEST_KEY' }));
    await admin.post('/admin/v1/models?check=off', model('acme/plain', [{ url: `http://127.0.0.1:${dead}/v1` }, { url: plain.url, model: 'real-name' }]));
    for (const id of ['acme/env', 'acme/plain']) assert.equal((await admin.put(path(id), { apiKey: 'stored-key-123' })).status, 200);
    const team = await createTeam(t.app, t.creds.adminToken);
    await topup(t.app, t.creds.adminToken, team.userId, 100000);
    const tenant = as(t.app, team.owner.apiKey);
    assert.equal((await tenant.post('/openai/v1/chat/completions', { model: 'acme/env', messages, max_tokens: 5 })).status, 200);
    assert.equal(withEnv.seen.at(-1)!.auth, 'Bearer from-the-environment', 'a server naming apiKeyEnv keeps its variable');
    assert.equal((await tenant.post('/openai/v1/chat/completions', { model: 'acme/plain', messages, max_tokens: 5 })).status, 200);
    assert.equal(plain.seen.at(-1)!.auth, 'Bearer stored-key-123');

    assert.equal((await admin.put(path('acme/none'), { apiKey: 'k' })).status, 404);
    const bad = await admin.put(path('acme/plain'), { apiKey: 'two words' });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.metadata.field, 'apiKey');
    assert.ok(!JSON.stringify(bad.body).includes('two words'), 'a refused key is not quoted back');
  } finally {
    await t.close();
    withEnv.server.close();
    plain.server.close();
  }
});

test('saving a model checks each HTTP upstream once and says what failed; strict refuses, off skips', async () => {
  const up = await upstream();
  const t = await buildTestApp();
  try {
    const admin = as(t.app, t.creds.adminToken);
    const sim = await admin.post('/admin/v1/models', model('acme/sim', 'sim'));
    assert.deepEqual(sim.body.check, { ok: true, upstreams: [] }, 'the simulator needs no check');

    up.key = 'sk-wanted-key-000111222333';
    const refusedKey = await admin.post('/admin/v1/models', model('acme/a', { url: up.url, model: 'real-name' }));
    assert.equal(refusedKey.status, 200, 'a failed check still saves by default');
    assert.deepEqual({ ...refusedKey.body.check.upstreams[0], error: undefined }, { url: up.url, reachable: true, keyAccepted: false, modelListed: null, error: undefined });
    assert.match(refusedKey.body.check.upstreams[0].error, /key was refused \(401, and none is set\)/);

    await admin.put(path('acme/a'), { apiKey: 'sk-not-the-one-444555666777' });
    const quoted = await admin.post('/admin/v1/models', model('acme/a', { url: up.url, model: 'real-name' }));
    assert.match(quoted.body.check.upstreams[0].error, /key was refused \(401\): Incorrect API key provided: \[redacted\]/, 'the upstream quoting the key is cut');
    assert.ok(!JSON.stringify(quoted.body).includes('sk-not-the-one'));

    up.key = undefined;
    up.models.ids = ['other-a', 'other-b'];
    const unlisted = await admin.post('/admin/v1/models', model('acme/a', { url: up.url, model: 'real-name' }));
    assert.equal(unlisted.body.check.ok, false);
    assert.equal(unlisted.body.check.upstreams[0].modelListed, false);
    assert.match(unlisted.body.check.upstreams[0].error, /does not list real-name \(it lists other-a, other-b\)/);

    up.models = { ids: [], status: 500, message: 'overloaded' };
    const failing = await admin.post('/admin/v1/models', model('acme/a', { url: up.url, model: 'real-name' }));
    assert.match(failing.body.check.upstreams[0].error, /answered 500: .*overloaded/);

    const dead = await closedPort();
    const unreachable = await admin.post('/admin/v1/models', model('acme/a', [{ url: `http://127.0.0.1:${dead}/v1` }, { url: up.url, model: 'real-name' }]));
    assert.equal(unreachable.body.check.upstreams[0].reachable, false);
    assert.match(unreachable.body.check.upstreams[0].error, /not reachable: ECONNREFUSED/);
    assert.equal(unreachable.body.check.upstreams.length, 2, 'every server of a list is checked');

    // strict: a failed check writes nothing
    const strict = await admin.post('/admin/v1/models?check=strict', model('acme/strict', { url: `http://127.0.0.1:${dead}/v1` }));
    assert.equal(strict.status, 400);
    assert.equal(strict.body.metadata.field, 'upstream');
    assert.match(strict.body.message, /ECONNREFUSED/);
    assert.ok(!(await admin.get('/admin/v1/models')).body.models.some((m: { id: string }) => m.id === 'acme/strict'));
    up.models = { ids: ['real-name'] };
    const passes = await admin.post('/admin/v1/models?check=strict', model('acme/strict', { url: up.url, model: 'real-name' }));
    assert.equal(passes.status, 200);
    assert.deepEqual(passes.body.check, { ok: true, upstreams: [{ url: up.url, reachable: true, keyAccepted: true, modelListed: true }] });

    const before = up.seen.length;
    const off = await admin.post('/admin/v1/models?check=off', model('acme/off', { url: `http://127.0.0.1:${dead}/v1` }));
    assert.equal(off.status, 200);
    assert.equal(off.body.check, null);
    assert.equal(up.seen.length, before, 'off: nothing is called');
  } finally {
    await t.close();
    up.server.close();
  }
});

test('a model whose upstream keeps failing is shown as failing with its last error; a success clears it; a healthy model is not written per call', async () => {
  const up = await upstream();
  const t = await buildTestApp();
  try {
    const admin = as(t.app, t.creds.adminToken);
    await admin.post('/admin/v1/models?check=off', model('acme/flaky', { url: up.url, model: 'real-name' }));
    const health = async () => (await admin.get(`/admin/v1/models/${encodeURIComponent('acme/flaky')}/health`)).body;
    assert.deepEqual(await health(), { state: 'unknown', consecutiveFailures: 0, lastError: null, lastErrorAt: null, lastSuccessAt: null });
    assert.equal((await admin.get('/admin/v1/models/acme%2Fnone/health')).status, 404);

    const team = await createTeam(t.app, t.creds.adminToken);
    await topup(t.app, t.creds.adminToken, team.userId, 100000);
    const tenant = as(t.app, team.owner.apiKey);
    const callOnce = (stream = false) => tenant.post('/openai/v1/chat/completions', { model: 'acme/flaky', messages, max_tokens: 5, stream });

    up.chatFails = 502;
    // the first failure is written at once, those after it within the next second (at most a write a second)
    assert.equal((await callOnce()).status, 503, 'tenants see a 503');
    await until('the operator sees the first failure', async () => (await health()).state === 'failing');
    for (let i = 0; i < 11; i++) assert.equal((await callOnce(i % 2 === 0)).status, 503);
    await until('the operator sees twelve failures in a row', async () => (await health()).consecutiveFailures === 12);
    const failing = await health();
    assert.equal(failing.state, 'failing');
    assert.match(failing.lastError, /upstream answered 502: the server is on fire/);
    assert.equal(failing.lastErrorAt, Math.floor(t.clock.nowMs() / 1000));
    const listed = (await admin.get('/admin/v1/models')).body.models.find((m: { id: string }) => m.id === 'acme/flaky');
    assert.equal(listed.upstreamHealth.state, 'failing', 'the admin model list shows it too');
    const metrics = async () => (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
    assert.match(await metrics(), /^gantry_upstream_consecutive_failures\{model="acme\/flaky"\} 12$/m, 'and /metrics, for alerting');

    up.chatFails = 400; // the client's request refused: the upstream answered, it is not failing
    assert.equal((await callOnce()).status, 400);
    up.chatFails = 0;
    t.clock.advance(5_000);
    assert.equal((await callOnce()).status, 200);
    await until('a success clears it', async () => (await health()).state === 'ok', { limitMs: 5_000 });
    const ok = await health();
    assert.equal(ok.consecutiveFailures, 0);
    assert.equal(ok.lastSuccessAt, Math.floor(t.clock.nowMs() / 1000));
    assert.match(ok.lastError, /502/, 'the last error stays for the record');
    assert.match(await metrics(), /^gantry_upstream_consecutive_failures\{model="acme\/flaky"\} 0$/m);

    // Successes on a healthy model are written at most once a minute, not per call.
    t.clock.advance(10_000);
    assert.equal((await callOnce()).status, 200);
    await t.services.gateway.upstreamHealth.settled();
    assert.equal((await health()).lastSuccessAt, ok.lastSuccessAt, 'a success 10 s later wrote nothing');
    t.clock.advance(60_000);
    assert.equal((await callOnce()).status, 200);
    await until('a success a minute later is written', async () => (await health()).lastSuccessAt === Math.floor(t.clock.nowMs() / 1000));
  } finally {
    await t.close();
    up.server.close();
  }
});

test('a key set on one replica is used by another from its next call after the change reaches it (its catalogue cache warm, no TTL passing)', async () => {
  const up = await upstream();
  const t = await buildTestApp();
  // a second replica on the same store, its change channel linked as LISTEN/NOTIFY links replicas
  const b = await buildApp({ config: t.config, store: t.store, clock: t.clock, logger: false });
  try {
    await linkReplicas(t.store, [t.services.ctx.changes, b.services.ctx.changes]);
    const admin = as(t.app, t.creds.adminToken);
    await admin.post('/admin/v1/models?check=off', model('acme/shared', { url: up.url, model: 'real-name' }));
    const team = await createTeam(t.app, t.creds.adminToken);
    await topup(t.app, t.creds.adminToken, team.userId, 100000);
    const onB = as(b.app, team.owner.apiKey);
    await until('replica B serves the model', async () => (await onB.post('/openai/v1/chat/completions', { model: 'acme/shared', messages, max_tokens: 5 })).status === 200);
    assert.equal(up.seen.at(-1)!.auth, undefined, 'no key yet');

    const heard = b.services.ctx.changes.received.get('catalogue.changed') ?? 0;
    assert.equal((await admin.put(path('acme/shared'), { apiKey: 'key-set-on-replica-a' })).status, 200);
    await until('replica B hears of the key', () => (b.services.ctx.changes.received.get('catalogue.changed') ?? 0) > heard);
    assert.equal((await onB.post('/openai/v1/chat/completions', { model: 'acme/shared', messages, max_tokens: 5 })).status, 200);
    assert.equal(up.seen.at(-1)!.auth, 'Bearer key-set-on-replica-a');
  } finally {
    await b.app.close();
    await t.close();
    up.server.close();
  }
});
