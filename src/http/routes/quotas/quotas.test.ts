import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp, type TestApp } from '../../../../test/helpers/app.ts';
import { as, call } from '../../../../test/helpers/http.ts';
import { createTeam, topup, type Team } from '../../../../test/helpers/factories.ts';

let h: TestApp;
let team: Team;
before(async () => {
  h = await buildTestApp();
  team = await createTeam(h.app, h.creds.adminToken);
});
after(() => h.close());

const BIG = '9223372036854775807'; // int64 max, far above 2^53

test('quota values are int64 JSON strings, exact above 2^53', async () => {
  const admin = as(h.app, h.creds.adminToken);
  const r = await admin.post('/admin/v1/quotas', {
    model: 'org/huge-model', modal: 'llm', quotaType: 'TPM', productType: 'Public Endpoint',
    defaultQuota: '9007199254740993', tiers: { T1: '9007199254740993', T2: 2, T3: 3, T4: 4, T5: BIG }, adjustable: false,
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const list = await call(h.app, 'GET', '/openapi/v1/user/quota/list', { token: team.owner.apiKey, query: { quotaObject: 'org/huge' } });
  assert.equal(list.status, 200);
  assert.equal(list.body.total, 1);
  const e = list.body.data[0];
  assert.equal(e.currentQuota, '9007199254740993');
  assert.equal(e.defaultQuota, '9007199254740993');
  assert.deepEqual(e.quotaItems, [
    { tier: 'T1', quota: '9007199254740993' }, { tier: 'T2', quota: '2' }, { tier: 'T3', quota: '3' }, { tier: 'T4', quota: '4' }, { tier: 'T5', quota: BIG },
  ]);
  // the raw text carries the digits exactly (no float rounding anywhere)
  const raw = await h.app.inject({ method: 'GET', url: '/openapi/v1/user/quota/list?quotaObject=huge', headers: { authorization: `Bearer ${team.owner.apiKey}` } });
  assert.match(raw.body, /"currentQuota":"9007199254740993"/);
  assert.match(raw.body, new RegExp(`"quota":"${BIG}"`));
  // an unsafe JSON number is refused rather than silently rounded
  const lossy = await h.app.inject({
    method: 'POST', url: '/admin/v1/quotas', headers: { authorization: `Bearer ${h.creds.adminToken}`, 'content-type': 'application/json' },
    payload: '{"model":"x","modal":"llm","quotaType":"RPM","productType":"Public Endpoint","defaultQuota":9007199254740993,"tiers":{"T1":1,"T2":1,"T3":1,"T4":1,"T5":1},"adjustable":true}',
  });
  assert.equal(lossy.statusCode, 400);
  assert.equal(JSON.parse(lossy.body).metadata.field, 'defaultQuota');
  const over = await admin.post('/admin/v1/quotas', { model: 'x', modal: 'llm', quotaType: 'RPM', productType: 'P', defaultQuota: '9223372036854775808', tiers: { T1: 1, T2: 1, T3: 1, T4: 1, T5: 1 }, adjustable: true });
  assert.equal(over.status, 400);
});

test('currentQuota follows the effective tier: operator tier or a month of top-ups', async () => {
  const q = async () => (await as(h.app, team.owner.apiKey).get('/openapi/v1/user/quota/list', { quotaObject: 'gantry/sim-chat-small', quotaType: 'RPM' })).body.data[0].currentQuota;
  assert.equal(await q(), '30');
  await topup(h.app, h.creds.adminToken, team.userId, 500_000); // $50 in one month → T2
  assert.equal(await q(), '100');
  assert.equal((await as(h.app, h.creds.adminToken).put(`/admin/v1/teams/${team.userId}/tier`, { tier: 'T4' })).status, 200);
  assert.equal(await q(), '3000');
  // three months later the top-up no longer counts, the operator tier still does
  await as(h.app, h.creds.adminToken).put(`/admin/v1/teams/${team.userId}/tier`, { tier: 'T1' });
  h.clock.set(Date.UTC(2027, 1, 1));
  assert.equal(await q(), '30');
  h.clock.set(Date.UTC(2026, 10, 15));
});

test('per-team overrides win over the tier value and can be removed', async () => {
  const admin = as(h.app, h.creds.adminToken);
  const other = await createTeam(h.app, h.creds.adminToken);
  const r = await admin.put(`/admin/v1/teams/${other.userId}/quotas`, { model: 'gantry/sim-chat-large', quotaType: 'RPM', currentQuota: '12345678901234567' });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const get = async (token: string) => (await as(h.app, token).get('/openapi/v1/user/quota/list', { quotaObject: 'sim-chat-large', quotaType: 'RPM' })).body.data[0];
  assert.equal((await get(other.owner.apiKey)).currentQuota, '12345678901234567');
  assert.equal((await get(other.owner.apiKey)).defaultQuota, '30');
  const third = await createTeam(h.app, h.creds.adminToken);
  assert.equal((await get(third.owner.apiKey)).currentQuota, '30', 'other teams unaffected');
  await admin.put(`/admin/v1/teams/${other.userId}/quotas`, { model: 'gantry/sim-chat-large', quotaType: 'RPM', currentQuota: null });
  assert.equal((await get(other.owner.apiKey)).currentQuota, '30');
  const noTeam = await admin.put('/admin/v1/teams/usr_missing/quotas', { model: 'gantry/sim-chat-large', quotaType: 'RPM', currentQuota: 1 });
  assert.equal(noTeam.status, 404);
  assert.equal(noTeam.body.reason, 'NOT_FOUND');
});

test('an override needs the model\'s quota definition of that type: a 400 saying so, then it works on a team with no override yet', async () => {
  const admin = as(h.app, h.creds.adminToken);
  const fresh = await createTeam(h.app, h.creds.adminToken);
  // a catalogue model has no quota until the operator defines one
  assert.equal((await admin.post('/admin/v1/models', {
    id: 'acme/llama', title: 'Llama', contextSize: 8192, inputTokenPricePerM: 1500, outputTokenPricePerM: 3000, status: 'available', upstream: 'sim',
  })).status, 200);
  for (const model of ['acme/llama', 'no/such']) {
    const r = await admin.put(`/admin/v1/teams/${fresh.userId}/quotas`, { model, quotaType: 'RPM', currentQuota: 600 });
    assert.equal(r.status, 400, JSON.stringify(r.body));
    assert.equal(r.body.reason, 'INVALID_ARGUMENT');
    assert.equal(r.body.metadata.field, 'model');
    assert.match(r.body.message, new RegExp(`${model} has no RPM quota definition: create one first`));
  }
  // a definition of another type is not enough
  assert.equal((await admin.post('/admin/v1/quotas', {
    model: 'acme/llama', modal: 'llm', quotaType: 'TPM', productType: 'Public Endpoint', defaultQuota: 1000, tiers: { T1: 1000, T2: 2000, T3: 3000, T4: 4000, T5: 5000 }, adjustable: true,
  })).status, 200);
  assert.equal((await admin.put(`/admin/v1/teams/${fresh.userId}/quotas`, { model: 'acme/llama', quotaType: 'RPM', currentQuota: 600 })).status, 400);
  assert.equal((await admin.post('/admin/v1/quotas', {
    model: 'acme/llama', modal: 'llm', quotaType: 'RPM', productType: 'Public Endpoint', defaultQuota: 30, tiers: { T1: 30, T2: 100, T3: 1000, T4: 3000, T5: 6000 }, adjustable: true,
  })).status, 200);
  const ok = await admin.put(`/admin/v1/teams/${fresh.userId}/quotas`, { model: 'acme/llama', quotaType: 'RPM', currentQuota: 600 });
  assert.equal(ok.status, 200, JSON.stringify(ok.body));
  const list = await as(h.app, fresh.owner.apiKey).get('/openapi/v1/user/quota/list', { quotaObject: 'acme/llama', quotaType: 'RPM' });
  assert.equal(list.body.data[0].currentQuota, '600');
  assert.equal(list.body.data[0].defaultQuota, '30');
});

test('filters: modal, quotaType, productType exact; quotaObject fuzzy; total counts what is returned', async () => {
  const c = as(h.app, team.members.Basic.apiKey); // every role reads quotas
  const all = (await c.get('/openapi/v1/user/quota/list')).body;
  assert.equal(all.total, all.data.length);
  assert.ok(all.total >= 5);
  const rpm = (await c.get('/openapi/v1/user/quota/list', { quotaType: 'RPM' })).body;
  assert.ok(rpm.data.every((d: { quotaType: string }) => d.quotaType === 'RPM'));
  assert.equal((await c.get('/openapi/v1/user/quota/list', { modal: 'image' })).body.total, 0);
  assert.equal((await c.get('/openapi/v1/user/quota/list', { productType: 'Public Endpoint', quotaObject: 'SIM-EMBED' })).body.total, 2); // its RPM and TPM
  assert.equal((await as(h.app, team.members.Billing.apiKey).get('/openapi/v1/user/quota/list')).status, 200);
});

test('quotaObject with a slash: URL-encoded once (the spec) or twice (a client encoding the id before its HTTP library does)', async () => {
  const c = as(h.app, team.members.Basic.apiKey);
  const get = async (rawQuery: string) => {
    const res = await h.app.inject({ method: 'GET', url: `/openapi/v1/user/quota/list?quotaType=RPM&${rawQuery}`, headers: { authorization: `Bearer ${team.members.Basic.apiKey}` } });
    return JSON.parse(res.body) as { data: { quotaObject: string }[]; total: number };
  };
  for (const q of ['quotaObject=gantry%2Fsim-embed', 'quotaObject=gantry%252Fsim-embed', 'quotaObject=gantry%252fsim-embed', 'quotaObject=gantry/sim-embed']) {
    const r = await get(q);
    assert.deepEqual(r.data.map((d) => d.quotaObject), ['gantry/sim-embed'], q);
  }
  // a lone % that is not an escape is matched literally, not an error
  assert.equal((await c.get('/openapi/v1/user/quota/list', { quotaObject: '100%' })).body.total, 0);
  assert.equal((await c.get('/openapi/v1/user/quota/list', { quotaObject: '%E0%A4%A' })).status, 200);
  // an escape left after the server's decoding that would decode to NUL is matched as sent (no model id has one)
  for (const q of ['quotaObject=%2500', 'quotaObject=a%2500b&modal=llm']) {
    const res = await h.app.inject({ method: 'GET', url: `/openapi/v1/user/quota/list?${q}`, headers: { authorization: `Bearer ${team.members.Basic.apiKey}` } });
    assert.equal(res.statusCode, 200, `${q}: ${res.body}`);
    assert.equal(JSON.parse(res.body).total, 0);
  }
});

test('quota definitions are validated: tiers T1-T5 all required, known quota types', async () => {
  const admin = as(h.app, h.creds.adminToken);
  const base = { model: 'm', modal: 'llm', quotaType: 'RPM', productType: 'P', defaultQuota: 1, adjustable: true };
  assert.equal((await admin.post('/admin/v1/quotas', { ...base, tiers: { T1: 1, T2: 1, T3: 1, T4: 1 } })).body.metadata.field, 'tiers.T5');
  assert.equal((await admin.post('/admin/v1/quotas', { ...base, quotaType: 'RPS', tiers: { T1: 1, T2: 1, T3: 1, T4: 1, T5: 1 } })).body.metadata.field, 'quotaType');
});
