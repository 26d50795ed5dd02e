import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp, type TestApp } from '../../../../test/helpers/app.ts';
import { as } from '../../../../test/helpers/http.ts';
import { createTeam, type Team } from '../../../../test/helpers/factories.ts';

let h: TestApp;
let team: Team;
let other: Team;
const url = (keyId: string) => `/openapi/v2/user/key/${keyId}/model-access-policy`;
const SMALL = 'gantry/sim-chat-small';
const LARGE = 'gantry/sim-chat-large';

before(async () => {
  h = await buildTestApp();
  team = await createTeam(h.app, h.creds.adminToken);
  other = await createTeam(h.app, h.creds.adminToken);
});
after(() => h.close());

test('a never-configured key reads as the default policy', async () => {
  const r = await as(h.app, team.owner.apiKey).get(url(team.members.Developer.keyId));
  assert.equal(r.status, 200);
  assert.deepEqual(r.body, {
    stringId: team.members.Developer.keyId,
    policy: { schemaVersion: 1, productScope: 'model_api', mode: 'all_enabled', allowedModels: [], excludedModels: [], source: { type: 'default' } },
    policyStatus: 'active', allowedModelCount: 0, excludedModelCount: 0, updatedAt: 0, updatedBy: '',
  });
});

test('set normalizes: inapplicable arrays stored empty, duplicates removed, source ignored', async () => {
  const owner = as(h.app, team.owner.apiKey);
  const keyId = team.members.Developer.keyId;
  const r = await owner.put(url(keyId), {
    mode: 'selected',
    allowedModels: [{ type: 'llm', id: SMALL }, { type: 'llm', id: SMALL }],
    excludedModels: [{ type: 'llm', id: LARGE }],
    source: { type: 'hacked' },
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.deepEqual(r.body.policy, {
    schemaVersion: 1, productScope: 'model_api', mode: 'selected',
    allowedModels: [{ type: 'llm', id: SMALL }], excludedModels: [], source: { type: 'private_policy' },
  });
  assert.equal(r.body.allowedModelCount, 1);
  assert.equal(r.body.excludedModelCount, 0);
  assert.equal(r.body.policyStatus, 'active');
  assert.equal(r.body.updatedBy, team.owner.memberId);
  assert.equal(r.body.updatedAt, Math.floor(h.clock.nowMs() / 1000));
  // GET reads back the stored, normalized policy
  assert.deepEqual((await owner.get(url(keyId))).body, r.body);

  const all = await owner.put(url(keyId), {
    mode: 'all_enabled', allowedModels: [{ type: 'llm', id: SMALL }],
    excludedModels: [{ type: 'llm', id: LARGE }, { type: 'llm', id: LARGE }],
  });
  assert.equal(all.status, 200);
  assert.deepEqual(all.body.policy.allowedModels, []);
  assert.deepEqual(all.body.policy.excludedModels, [{ type: 'llm', id: LARGE }]);
});

test('mode=selected needs at least one allowed model; nothing is written on failure', async () => {
  const owner = as(h.app, team.owner.apiKey);
  const keyId = team.members.Basic.keyId;
  const r = await owner.put(url(keyId), { mode: 'selected', allowedModels: [] });
  assert.equal(r.status, 400);
  assert.equal(r.body.reason, 'INVALID_ARGUMENT');
  assert.equal(r.body.code, 400);
  assert.equal(r.body.metadata.field, 'allowedModels');
  assert.equal((await owner.get(url(keyId))).body.policy.source.type, 'default');
});

test('every model must be enabled for the team and available; the error names it', async () => {
  const admin = as(h.app, h.creds.adminToken);
  const owner = as(h.app, team.owner.apiKey);
  const keyId = team.members.Admin.keyId;
  // unknown model
  let r = await owner.put(url(keyId), { mode: 'selected', allowedModels: [{ type: 'llm', id: 'nope/model' }] });
  assert.equal(r.status, 400);
  assert.equal(r.body.metadata.model, 'nope/model');
  assert.match(r.body.message, /nope\/model/);
  // offline model
  const offline = await admin.post('/admin/v1/models', {
    id: 'test/offline', title: 'Offline', contextSize: 1000, inputTokenPricePerM: 1, outputTokenPricePerM: 1, status: 'offline', upstream: 'sim',
  });
  assert.equal(offline.status, 200);
  r = await owner.put(url(keyId), { mode: 'all_enabled', excludedModels: [{ type: 'llm', id: 'test/offline' }] });
  assert.equal(r.status, 400);
  assert.equal(r.body.metadata.model, 'test/offline');
  // not enabled for this team
  assert.equal((await admin.put(`/admin/v1/teams/${team.userId}/models`, { enabledModels: [SMALL] })).status, 200);
  r = await owner.put(url(keyId), { mode: 'selected', allowedModels: [{ type: 'llm', id: SMALL }, { type: 'llm', id: LARGE }] });
  assert.equal(r.status, 400);
  assert.equal(r.body.metadata.model, LARGE);
  assert.equal((await owner.get(url(keyId))).body.policy.source.type, 'default', 'nothing half-written');
  r = await owner.put(url(keyId), { mode: 'selected', allowedModels: [{ type: 'llm', id: SMALL }] });
  assert.equal(r.status, 200);
  // the other team still has every model
  r = await as(h.app, other.owner.apiKey).put(url(other.owner.keyId), { mode: 'selected', allowedModels: [{ type: 'llm', id: LARGE }] });
  assert.equal(r.status, 200);
  assert.equal((await admin.put(`/admin/v1/teams/${team.userId}/models`, { enabledModels: null })).status, 200);
});

test('policyStatus turns no_available_models when nothing in the policy is callable', async () => {
  const admin = as(h.app, h.creds.adminToken);
  const owner = as(h.app, other.owner.apiKey);
  const keyId = other.members.Developer.keyId;
  await admin.post('/admin/v1/models', { id: 'test/flaky', title: 'Flaky', contextSize: 1000, inputTokenPricePerM: 1, outputTokenPricePerM: 1, status: 'available', upstream: 'sim' });
  assert.equal((await owner.put(url(keyId), { mode: 'selected', allowedModels: [{ type: 'llm', id: 'test/flaky' }] })).body.policyStatus, 'active');
  await admin.post('/admin/v1/models', { id: 'test/flaky', title: 'Flaky', contextSize: 1000, inputTokenPricePerM: 1, outputTokenPricePerM: 1, status: 'offline', upstream: 'sim' });
  assert.equal((await owner.get(url(keyId))).body.policyStatus, 'no_available_models');
});

test('only Owner and Admin may set or delete a policy', async () => {
  const keyId = team.members.Developer.keyId;
  for (const role of ['Developer', 'Basic', 'Billing'] as const) {
    const c = as(h.app, team.members[role].apiKey);
    const put = await c.put(url(keyId), { mode: 'all_enabled' });
    assert.equal(put.status, 403, role);
    assert.equal(put.body.reason, 'FORBIDDEN');
    assert.equal((await c.delete(url(keyId))).status, 403, role);
  }
  for (const role of ['Owner', 'Admin'] as const) {
    assert.equal((await as(h.app, team.members[role].apiKey).put(url(keyId), { mode: 'all_enabled' })).status, 200, role);
  }
});

test('Developer reads its own key policy without the model lists; not others; Basic and Billing not at all', async () => {
  const owner = as(h.app, team.owner.apiKey);
  const devKey = team.members.Developer.keyId;
  await owner.put(url(devKey), { mode: 'all_enabled', excludedModels: [{ type: 'llm', id: LARGE }] });
  const dev = as(h.app, team.members.Developer.apiKey);
  const own = await dev.get(url(devKey));
  assert.equal(own.status, 200);
  assert.deepEqual(own.body.policy.excludedModels, []);
  assert.equal(own.body.excludedModelCount, 1);
  assert.equal((await dev.get(url(team.owner.keyId))).status, 403);
  assert.equal((await as(h.app, team.members.Basic.apiKey).get(url(team.members.Basic.keyId))).status, 403);
  assert.equal((await as(h.app, team.members.Billing.apiKey).get(url(devKey))).status, 403);
});

test('a key of another team answers as if it did not exist', async () => {
  const owner = as(h.app, team.owner.apiKey);
  const foreign = other.owner.keyId;
  for (const r of [await owner.get(url(foreign)), await owner.put(url(foreign), { mode: 'all_enabled' }), await owner.delete(url(foreign))]) {
    assert.equal(r.status, 404);
    assert.equal(r.body.reason, 'NOT_FOUND');
  }
  const missing = await owner.get(url('key_doesnotexist'));
  assert.equal(missing.status, 404);
  assert.equal(missing.body.message.replace('key_doesnotexist', foreign), (await owner.get(url(foreign))).body.message);
});

test('DELETE returns the key to the default policy', async () => {
  const owner = as(h.app, team.owner.apiKey);
  const keyId = team.members.Billing.keyId;
  await owner.put(url(keyId), { mode: 'selected', allowedModels: [{ type: 'llm', id: SMALL }] });
  const d = await owner.delete(url(keyId));
  assert.equal(d.status, 200);
  assert.deepEqual(d.body, {});
  const r = await owner.get(url(keyId));
  assert.equal(r.body.policy.source.type, 'default');
  assert.equal(r.body.updatedAt, 0);
});

test('bad bodies are refused with the field and the rule', async () => {
  const owner = as(h.app, team.owner.apiKey);
  const keyId = team.owner.keyId;
  const cases: [unknown, string][] = [
    [{}, 'mode'],
    [{ mode: 'some' }, 'mode'],
    [{ mode: 'all_enabled', schemaVersion: 2 }, 'schemaVersion'],
    [{ mode: 'all_enabled', productScope: 'gpu' }, 'productScope'],
    [{ mode: 'selected', allowedModels: [{ type: 'image', id: SMALL }] }, 'allowedModels.0.type'],
  ];
  for (const [body, field] of cases) {
    const r = await owner.put(url(keyId), body);
    assert.equal(r.status, 400, JSON.stringify(body));
    assert.deepEqual(Object.keys(r.body).sort(), ['code', 'message', 'metadata', 'reason']);
    assert.equal(r.body.metadata.field, field, JSON.stringify(r.body));
  }
});

test('a key\'s models: what a call with it may reach, narrowed by its policy and its member\'s; own keys, or any for Owner/Admin', async () => {
  const models = (keyId: string) => `/openapi/v2/user/key/${keyId}/models`;
  const ids = (r: { body: { data: { id: string }[] } }) => r.body.data.map((m) => m.id).sort();
  // the other team's Admin: no test before sets its key's policy
  const owner = as(h.app, other.owner.apiKey);
  const admin = other.members.Admin;
  const everything = ids(await as(h.app, admin.apiKey).get('/openai/v1/models'));
  assert.ok(everything.includes(SMALL) && everything.includes(LARGE), 'both are callable before any policy');
  assert.deepEqual(ids(await owner.get(models(admin.keyId))), everything, 'the default policy: what the key itself lists');
  await owner.put(url(admin.keyId), { mode: 'selected', allowedModels: [{ type: 'llm', id: SMALL }, { type: 'llm', id: LARGE }] });
  const memberPolicy = `/openapi/v2/user/member/${admin.memberId}/model-access-policy`;
  assert.equal((await owner.put(memberPolicy, { mode: 'all_enabled', excludedModels: [{ type: 'llm', id: LARGE }] })).status, 200);
  const narrowed = await as(h.app, admin.apiKey).get(models(admin.keyId));
  assert.equal(narrowed.status, 200);
  assert.deepEqual(ids(narrowed), [SMALL], 'the key\'s policy and its member\'s together');
  assert.deepEqual(ids(narrowed), ids(await as(h.app, admin.apiKey).get('/openai/v1/models')), 'the same as the key\'s own list');
  assert.deepEqual(ids(await owner.get(models(admin.keyId))), [SMALL], 'whoever asks');
  await owner.delete(memberPolicy);
  await owner.delete(url(admin.keyId));
  const basic = as(h.app, other.members.Basic.apiKey);
  assert.equal((await basic.get(models(other.members.Basic.keyId))).status, 200, 'any member lists its own keys\' models');
  assert.equal((await basic.get(models(admin.keyId))).status, 403, 'not another member\'s');
  assert.equal((await owner.get(models(team.owner.keyId))).status, 404, 'a key of another team does not exist');
});
