import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp, type TestApp } from '../../../../test/helpers/app.ts';
import { as } from '../../../../test/helpers/http.ts';

let h: TestApp;
before(async () => { h = await buildTestApp(); });
after(() => h.close());

test('operator creates a team, adds members and keys; the key works at once', async () => {
  const admin = as(h.app, h.creds.adminToken);
  const t = await admin.post('/admin/v1/teams', { name: 'acme', ownerEmail: 'owner@acme.io', tier: 'T3' });
  assert.equal(t.status, 200);
  assert.match(t.body.userId, /^usr_/);
  assert.match(t.body.ownerMemberId, /^mem_/);
  const m = await admin.post(`/admin/v1/teams/${t.body.userId}/members`, { email: 'dev@acme.io', role: 'Developer', phone: '+1 555', remarkName: 'Dev' });
  assert.equal(m.status, 200);
  const k = await admin.post(`/admin/v1/members/${m.body.memberId}/keys`, { name: 'ci' });
  assert.equal(k.status, 200);
  assert.match(k.body.apiKey, /^sk_[A-Za-z0-9_-]{43}$/);
  assert.equal((await as(h.app, k.body.apiKey).get('/openapi/v1/user/quota/list')).status, 200);
  let got = await admin.get(`/admin/v1/teams/${t.body.userId}`);
  assert.equal(got.body.tier, 'T3');
  assert.equal(got.body.effectiveTier, 'T3');
  assert.equal((await admin.post(`/admin/v1/teams/${t.body.userId}/tier`, { tier: 'T4' })).status, 200, 'POST works like PUT for settings');
  assert.equal((await admin.put(`/admin/v1/teams/${t.body.userId}/credit-limit`, { creditLimit: '25000' })).status, 200);
  got = await admin.get(`/admin/v1/teams/${t.body.userId}`);
  assert.equal(got.body.effectiveTier, 'T4');
  assert.equal(got.body.balance.creditLimit, '25000');
  assert.equal(got.body.balance.availableBalance, '25000');
  const members = await admin.get(`/admin/v1/teams/${t.body.userId}/members`);
  assert.deepEqual(members.body.members.map((x: { role: string }) => x.role).sort(), ['Developer', 'Owner']);
  assert.ok((await admin.get('/admin/v1/teams')).body.teams.some((x: { userId: string }) => x.userId === t.body.userId));
  // revoke: the key stops at once on this replica
  assert.equal((await admin.post(`/admin/v1/keys/${k.body.keyId}/revoke`)).status, 200);
  assert.equal((await as(h.app, k.body.apiKey).get('/openapi/v1/user/quota/list')).status, 401);
});

test('operator inputs are validated with the field named; duplicates conflict', async () => {
  const admin = as(h.app, h.creds.adminToken);
  const bad = await admin.post('/admin/v1/teams', { name: 'x', ownerEmail: 'not-an-email' });
  assert.equal(bad.status, 400);
  assert.equal(bad.body.metadata.field, 'ownerEmail');
  assert.equal((await admin.post('/admin/v1/teams', { name: 'x', ownerEmail: 'a@b.co', tier: 'T9' })).body.metadata.field, 'tier');
  const t = await admin.post('/admin/v1/teams', { name: 'y', ownerEmail: 'a@b.co' });
  const dup = await admin.post(`/admin/v1/teams/${t.body.userId}/members`, { email: 'a@b.co', role: 'Basic' });
  assert.equal(dup.status, 409);
  assert.equal((await admin.post(`/admin/v1/teams/${t.body.userId}/members`, { email: 'c@b.co', role: 'Boss' })).body.metadata.field, 'role');
  assert.equal((await admin.post('/admin/v1/teams/usr_none/members', { email: 'c@b.co', role: 'Basic' })).status, 404);
  const model = await admin.post('/admin/v1/models', { id: 'a/b', title: 'T', contextSize: 10, inputTokenPricePerM: 1, outputTokenPricePerM: 1, status: 'available', upstream: { url: 'ftp://x' } });
  assert.equal(model.status, 400);
  assert.equal(model.body.metadata.field, 'upstream.url');
  // a usage charge names a category the bill queries can filter on; a bad one posts nothing
  const charge = { amount: '100', billingMethod: 1, productId: 'p', productName: 'p', idempotencyKey: 'cat-1' };
  const bogus = await admin.post(`/admin/v1/teams/${t.body.userId}/charges`, { ...charge, category: 'bogus' });
  assert.equal(bogus.status, 400);
  assert.equal(bogus.body.metadata.field, 'category');
  assert.equal((await admin.post(`/admin/v1/teams/${t.body.userId}/charges`, { ...charge, category: 'summary' })).status, 400);
  assert.equal((await admin.get(`/admin/v1/teams/${t.body.userId}`)).body.balance.availableBalance, '0');
  const ok = await admin.post(`/admin/v1/teams/${t.body.userId}/charges`, { ...charge, category: 'gpu' });
  assert.equal(ok.status, 200, JSON.stringify(ok.body));
  assert.equal(ok.body.duplicate, false);
});

test('models: create or replace, list, per-team enablement', async () => {
  const admin = as(h.app, h.creds.adminToken);
  const body = { id: 'acme/llama', title: 'Llama', contextSize: 8192, inputTokenPricePerM: '1500', outputTokenPricePerM: 3000, status: 'available', upstream: [{ url: 'http://127.0.0.1:9/v1', model: 'llama', apiKeyEnv: 'LLAMA_KEY' }, 'sim'] };
  const r = await admin.post('/admin/v1/models', body);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.body.inputTokenPricePerM, '1500');
  const replaced = await admin.post('/admin/v1/models', { ...body, title: 'Llama 2' });
  assert.equal(replaced.body.title, 'Llama 2');
  assert.equal(replaced.body.created, r.body.created, 'created is kept on replace');
  assert.ok((await admin.get('/admin/v1/models')).body.models.some((m: { id: string }) => m.id === 'acme/llama'));
  const t = await admin.post('/admin/v1/teams', { name: 'z', ownerEmail: 'z@z.co' });
  const all = await admin.get(`/admin/v1/teams/${t.body.userId}/models`);
  assert.equal(all.body.enabledModels, null);
  assert.ok(all.body.models.length >= 4);
  assert.equal((await admin.put(`/admin/v1/teams/${t.body.userId}/models`, { enabledModels: ['acme/llama', 'acme/llama'] })).status, 200);
  assert.deepEqual((await admin.get(`/admin/v1/teams/${t.body.userId}/models`)).body.models.map((m: { id: string }) => m.id), ['acme/llama']);
  assert.equal((await admin.put(`/admin/v1/teams/${t.body.userId}/models`, { enabledModels: ['no/such'] })).status, 404);
});

test('team self-service: Owner and Admin manage members and keys; Admin never the Owner', async () => {
  const admin = as(h.app, h.creds.adminToken);
  const t = await admin.post('/admin/v1/teams', { name: 'self', ownerEmail: 'o@self.io' });
  const ownerKey = (await admin.post(`/admin/v1/members/${t.body.ownerMemberId}/keys`, { name: 'o' })).body.apiKey;
  const owner = as(h.app, ownerKey);
  const adm = await owner.post('/openapi/v1/user/team/members', { email: 'admin@self.io', role: 'Admin' });
  assert.equal(adm.status, 200);
  const admKey = (await admin.post(`/admin/v1/members/${adm.body.memberId}/keys`, { name: 'a' })).body.apiKey;
  const a = as(h.app, admKey);
  const dev = await a.post('/openapi/v1/user/team/members', { email: 'dev@self.io', role: 'Developer' });
  assert.equal(dev.status, 200);
  assert.equal((await a.post('/openapi/v1/user/team/members', { email: 'o2@self.io', role: 'Owner' })).status, 403);
  assert.equal((await a.post(`/openapi/v1/user/team/members/${t.body.ownerMemberId}/role`, { role: 'Basic' })).status, 403);
  assert.equal((await a.post(`/openapi/v1/user/team/members/${t.body.ownerMemberId}/disable`)).status, 403);
  assert.equal((await a.post(`/openapi/v1/user/team/members/${dev.body.memberId}/role`, { role: 'Basic' })).status, 200);
  assert.equal((await a.put('/openapi/v1/user/team/budget', { member_id: dev.body.memberId, budget_type: 'One-time', budget_limit: 10000 })).status, 200);
  const list = await owner.get('/openapi/v1/user/team/members');
  assert.equal(list.body.members.length, 3);
  // own keys: create, list, revoke
  const mine = await a.post('/openapi/v1/user/keys', { name: 'second' });
  assert.equal(mine.status, 200);
  assert.equal((await a.get('/openapi/v1/user/keys')).body.keys.length, 2);
  assert.equal((await as(h.app, mine.body.apiKey).post(`/openapi/v1/user/keys/${mine.body.keyId}/revoke`)).status, 200);
  assert.equal((await as(h.app, mine.body.apiKey).get('/openapi/v1/user/keys')).status, 401);
  // a member of another team reads as not found
  const other = await admin.post('/admin/v1/teams', { name: 'other', ownerEmail: 'o@other.io' });
  assert.equal((await owner.post(`/openapi/v1/user/team/members/${other.body.ownerMemberId}/role`, { role: 'Basic' })).status, 404);
});

test('a team keeps an active Owner; role changes and disables take effect on the member\'s key at once', async () => {
  const admin = as(h.app, h.creds.adminToken);
  const t = await admin.post('/admin/v1/teams', { name: 'owners', ownerEmail: 'o@owners.io' });
  const ownerId = t.body.ownerMemberId;
  const owner = as(h.app, (await admin.post(`/admin/v1/members/${ownerId}/keys`, { name: 'o' })).body.apiKey);
  // the sole Owner cannot demote itself, and the operator cannot demote or disable it either
  for (const [who, url, body] of [
    [owner, `/openapi/v1/user/team/members/${ownerId}/role`, { role: 'Basic' }],
    [admin, `/admin/v1/members/${ownerId}/role`, { role: 'Admin' }],
    [admin, `/admin/v1/members/${ownerId}/disable`, {}],
  ] as const) {
    const r = await who.post(url, body);
    assert.equal(r.status, 409, `${url}: ${JSON.stringify(r.body)}`);
    assert.equal(r.body.reason, 'CONFLICT');
  }
  assert.equal((await owner.get('/openapi/v1/billing/balance/detail')).status, 200);
  const members = await owner.get('/openapi/v1/user/team/members');
  assert.deepEqual(members.body.members.map((m: { role: string; status: string }) => [m.role, m.status]), [['Owner', 'active']]);

  // with a second Owner, the first may step down
  const second = await owner.post('/openapi/v1/user/team/members', { email: 'o2@owners.io', role: 'Owner' });
  assert.equal(second.status, 200);
  assert.equal((await owner.post(`/openapi/v1/user/team/members/${ownerId}/role`, { role: 'Admin' })).status, 200);
  // the new role holds for the very next request (no stale key cache): an Admin may not touch the Owner
  assert.equal((await owner.post(`/openapi/v1/user/team/members/${second.body.memberId}/role`, { role: 'Basic' })).status, 403);

  // self-service demotion and disable reach the member's key at once
  const adm = await owner.post('/openapi/v1/user/team/members', { email: 'a@owners.io', role: 'Admin' });
  const admKey = as(h.app, (await admin.post(`/admin/v1/members/${adm.body.memberId}/keys`, { name: 'a' })).body.apiKey);
  assert.equal((await admKey.get('/openapi/v1/billing/balance/detail')).status, 200);
  const secondKey = as(h.app, (await admin.post(`/admin/v1/members/${second.body.memberId}/keys`, { name: 'o2' })).body.apiKey);
  assert.equal((await secondKey.post(`/openapi/v1/user/team/members/${adm.body.memberId}/role`, { role: 'Basic' })).status, 200);
  assert.equal((await admKey.get('/openapi/v1/billing/balance/detail')).status, 403);
  assert.equal((await secondKey.post(`/openapi/v1/user/team/members/${adm.body.memberId}/disable`)).status, 200);
  assert.equal((await admKey.get('/openapi/v1/user/quota/list')).status, 401);
});
