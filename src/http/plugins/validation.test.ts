import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.ts';
import { as } from '../../../test/helpers/http.ts';
import { createTeam, type Team } from '../../../test/helpers/factories.ts';

let h: TestApp;
let team: Team;

before(async () => {
  h = await buildTestApp();
  team = await createTeam(h.app, h.creds.adminToken);
});
after(() => h.close());

/** What a client that always sends the interface's common headers does: JSON content type, no body. */
async function bare(method: 'DELETE' | 'POST' | 'PUT', url: string, token: string, payload?: string) {
  const res = await h.app.inject({
    method, url,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    ...(payload !== undefined ? { payload } : {}),
  });
  return { status: res.statusCode, body: JSON.parse(res.body) };
}

test('Content-Type: application/json with an empty body reads as no body (DELETE, body-less POST)', async () => {
  const policy = `/openapi/v2/user/key/${team.members.Basic.keyId}/model-access-policy`;
  const owner = as(h.app, team.owner.apiKey);
  assert.equal((await owner.put(policy, { mode: 'all_enabled', excludedModels: [] })).status, 200);
  const del = await bare('DELETE', policy, team.owner.apiKey);
  assert.equal(del.status, 200, JSON.stringify(del.body));
  assert.deepEqual(del.body, {});
  assert.equal((await owner.get(policy)).body.policy.source.type, 'default');

  const revoke = await bare('POST', `/admin/v1/keys/${team.members.Developer.keyId}/revoke`, h.creds.adminToken, '');
  assert.equal(revoke.status, 200, JSON.stringify(revoke.body));
  assert.equal((await as(h.app, team.members.Developer.apiKey).get('/openapi/v1/user/quota/list')).status, 401);
});

test('a route that needs a body still refuses an empty one, and broken JSON stays a 400', async () => {
  const empty = await bare('PUT', '/openapi/v1/user/team/key-budget', team.owner.apiKey, '  ');
  assert.equal(empty.status, 400);
  assert.equal(empty.body.reason, 'INVALID_ARGUMENT');
  assert.equal(empty.body.metadata.field, 'body');
  assert.deepEqual(Object.keys(empty.body).sort(), ['code', 'message', 'metadata', 'reason']);

  const broken = await bare('PUT', '/openapi/v1/user/team/key-budget', team.owner.apiKey, '{"member_id":');
  assert.equal(broken.status, 400);
  assert.equal(broken.body.metadata.rule, 'FST_ERR_CTP_INVALID_JSON_BODY');

  const poisoned = await bare('PUT', '/openapi/v1/user/team/key-budget', team.owner.apiKey, '{"__proto__":{"x":1}}');
  assert.equal(poisoned.status, 400);
});

test('an operator route whose body is optional takes a POST without any body', async () => {
  const t = await createTeam(h.app, h.creds.adminToken);
  for (const headers of [{}, { 'content-type': 'application/json' }]) {
    const res = await h.app.inject({ method: 'POST', url: `/admin/v1/members/${t.members.Basic.memberId}/disable`, headers: { authorization: `Bearer ${h.creds.adminToken}`, ...headers } });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal((await as(h.app, t.members.Basic.apiKey).get('/openapi/v1/user/quota/list')).status, 401);
    assert.equal((await as(h.app, h.creds.adminToken).post(`/admin/v1/members/${t.members.Basic.memberId}/disable`, { disabled: false })).status, 200);
  }
  const suspend = await h.app.inject({ method: 'POST', url: `/admin/v1/teams/${t.userId}/suspend`, headers: { authorization: `Bearer ${h.creds.adminToken}` } });
  assert.equal(suspend.statusCode, 200, suspend.body);
  assert.equal((await as(h.app, h.creds.adminToken).get(`/admin/v1/teams/${t.userId}`)).body.status, 'suspended');
  // a wrong type in an optional body is still refused
  const bad = await as(h.app, h.creds.adminToken).post(`/admin/v1/teams/${t.userId}/suspend`, { suspended: 'no' });
  assert.equal(bad.status, 400);
  assert.equal(bad.body.metadata.field, 'suspended');
});
