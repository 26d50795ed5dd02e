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

// ---- what no schema says: text a store can keep, numbers JSON can carry ----

async function raw(method: 'GET' | 'POST' | 'PUT', url: string, token: string, payload?: string) {
  const res = await h.app.inject({ method, url, headers: { authorization: `Bearer ${token}`, ...(payload !== undefined ? { 'content-type': 'application/json' } : {}) }, ...(payload !== undefined ? { payload } : {}) });
  return { status: res.statusCode, body: JSON.parse(res.body) };
}

function expectField(r: { status: number; body: any }, field: string, rule: RegExp, reason = 'INVALID_ARGUMENT'): void {
  assert.equal(r.status, 400, JSON.stringify(r.body));
  assert.equal(r.body.reason, reason, JSON.stringify(r.body));
  assert.equal(r.body.metadata.field, field, JSON.stringify(r.body));
  assert.match(r.body.metadata.rule, rule, JSON.stringify(r.body));
}

test('a NUL byte in the path, the query or any string of a body is a 400 naming the field', async () => {
  const admin = h.creds.adminToken;
  const NUL = /without NUL/;
  expectField(await raw('POST', '/admin/v1/members/a%00b/keys', admin, '{"name":"k"}'), 'memberId', NUL);
  expectField(await raw('GET', '/openapi/v1/user/team/key-budget-list?member_id=a%00b', team.owner.apiKey), 'member_id', NUL);
  expectField(await raw('POST', `/admin/v1/members/${team.members.Basic.memberId}/keys`, admin, '{"name":"a\\u0000b"}'), 'name', NUL);
  const template = { name: 't', type: 'instance', channel: 'private', image: 'img', rootfsSize: 10, envs: [{ key: 'K', value: 'v\u0000' }] };
  expectField(await raw('POST', '/gpu-instance/openapi/v1/template/create', team.owner.apiKey, JSON.stringify({ template })), 'template.envs.0.value', NUL, 'VALIDATOR_PARAM');
  // a key too (a record such as a product's nodeSelector is stored as it is)
  const product = { id: 'p_nul', name: 'p', gpuModel: 'g', cpuPerGpu: 1, memoryPerGpu: 1, diskPerGpu: 1, price: 1, spotPrice: 1, monthlyPrice: 1, billingMethods: ['onDemand'], nodeSelector: { 'a\u0000': 'b' } };
  expectField(await raw('POST', '/admin/v1/gpu/products', admin, JSON.stringify(product)), 'nodeSelector.a\u0000', NUL);
  // a lone UTF-16 surrogate is no text either (PostgreSQL refuses it in jsonb)
  expectField(await raw('POST', `/admin/v1/members/${team.members.Basic.memberId}/keys`, admin, '{"name":"a\\ud800b"}'), 'name', /valid Unicode/);
});

test('a model call takes NUL in what it forwards (prompts are the client\'s content, as OpenAI takes them)', async () => {
  const owner = team.owner.apiKey;
  await as(h.app, h.creds.adminToken).post(`/admin/v1/teams/${team.userId}/topups`, { amount: 1_000_000, idempotencyKey: `nul-${team.userId}` });
  const r = await raw('POST', '/openai/v1/chat/completions', owner, JSON.stringify({ model: 'gantry/sim-chat-small', max_tokens: 5, messages: [{ role: 'user', content: 'a\u0000b \ud800' }] }));
  assert.equal(r.status, 200, JSON.stringify(r.body));
});

test('numbers: int64 beyond 2^53 travel as strings, kept exact; beyond the field\'s range, a 400 naming the field and range', async () => {
  const admin = h.creds.adminToken;
  const quota = (currentQuota: string) => `{"model":"gantry/sim-chat-small","quotaType":"RPM","currentQuota":${currentQuota}}`;
  const url = `/admin/v1/teams/${team.userId}/quotas`;
  // a JSON number above 2^53 was rounded by JSON.parse: refused, naming the string form
  expectField(await raw('PUT', url, admin, quota('9007199254740993')), 'currentQuota', /as a JSON number; send larger integers as strings of digits/);
  assert.equal((await raw('PUT', url, admin, quota('"9007199254740993"'))).status, 200);
  const listed = await as(h.app, team.owner.apiKey).get('/openapi/v1/user/quota/list', { quotaObject: 'gantry/sim-chat-small', quotaType: 'RPM' });
  assert.equal(listed.body.data[0].currentQuota, '9007199254740993', 'exact');
  // a string beyond int64
  expectField(await raw('PUT', url, admin, quota('"9223372036854775808"')), 'currentQuota', /64-bit integer/);
  // int4 columns: 2^31 and 1e308 (an integer to JavaScript) are beyond the range the 400 names
  const model = (contextSize: string) => `{"id":"acme/m","title":"M","contextSize":${contextSize},"inputTokenPricePerM":1,"outputTokenPricePerM":1,"status":"available","upstream":"sim"}`;
  expectField(await raw('POST', '/admin/v1/models', admin, model('2147483648')), 'contextSize', /^must be an integer in 1-2147483647$/);
  expectField(await raw('POST', '/admin/v1/models', admin, model('1e308')), 'contextSize', /^must be an integer in 1-2147483647$/);
  expectField(await raw('POST', '/admin/v1/models', admin, model('1e400')), 'contextSize', /^must be an integer in 1-2147483647$/);
  expectField(await raw('PUT', '/admin/v1/gpu/products/prd_rtx4090_24g/inventory/cls_local', admin, '{"totalGpus":2147483648}'), 'totalGpus', /in 0-2147483647/);
  // money: an amount beyond what int8 micro-units hold, in either form
  for (const amount of ['1000000000001', '"1000000000001"', '"9223372036854775807"']) {
    expectField(await raw('POST', `/admin/v1/teams/${team.userId}/topups`, admin, `{"amount":${amount},"idempotencyKey":"big-${amount.length}"}`), 'amount', /0-1000000000000/);
  }
  expectField(await raw('PUT', `/admin/v1/teams/${team.userId}/credit-limit`, admin, '{"creditLimit":"9007199254740993"}'), 'creditLimit', /0-1000000000000/);
  expectField(await raw('POST', '/admin/v1/models', admin, model('1').replace('"inputTokenPricePerM":1', '"inputTokenPricePerM":"9223372036854775807"')), 'inputTokenPricePerM', /0-1000000000/);
});

test('Unix seconds beyond year 9000 are a 400 naming the field and its range, not an invalid date', async () => {
  const owner = as(h.app, team.owner.apiKey);
  for (const [url, query] of [
    ['/openapi/v1/billing/bill/list', { cycleType: 'Day', productCategory: 'gpu', startTime: '99999999999999' }],
    ['/openapi/v1/billing/bill/list', { cycleType: 'Day', productCategory: 'gpu', startTime: '9007199254740993', endTime: '9007199254740993' }],
    ['/openapi/v1/billing/bill/monthly/list', { endTime: '221845392001' }],
    ['/openapi/v1/billing/apikey/bill/list', { cycleType: 'Day', startTime: '1', endTime: '1e308' }],
  ] as const) {
    const r = await owner.get(url, query);
    assert.equal(r.status, 400, `${url} ${JSON.stringify(query)}: ${JSON.stringify(r.body)}`);
    assert.equal(r.body.reason, 'INVALID_BILL_CYCLE');
    assert.match(r.body.metadata.field, /^(startTime|endTime)$/);
    assert.match(r.body.message, /0-221845392000|2\^53/);
  }
  // the last second taken is a date, whole months of buckets included
  for (const cycleType of ['Hour', 'Day', 'Week', 'Month']) {
    const last = await owner.get('/openapi/v1/billing/bill/list', { cycleType, productCategory: 'gpu', startTime: String(221845392000 - 30 * 86_400), endTime: '221845392000' });
    assert.equal(last.status, 200, `${cycleType}: ${JSON.stringify(last.body)}`);
  }
  assert.equal((await owner.get('/openapi/v1/billing/bill/monthly/list', { startTime: '221845391000' })).status, 200);
});

test('the OpenAPI document states the range of every integer a management route takes', async () => {
  const doc = (await as(h.app, h.creds.adminToken).get('/openapi.json')).body;
  const unbounded: string[] = [];
  const walk = (s: any, where: string): void => {
    if (!s || typeof s !== 'object') return;
    const types = [s.type].flat();
    if (types.includes('integer') || types.includes('number')) {
      if (s.maximum === undefined || (s.minimum === undefined && s.exclusiveMinimum === undefined)) unbounded.push(where);
      if (types.includes('string') && s.format !== 'int64') unbounded.push(`${where} (string form without format int64)`);
    }
    for (const [k, v] of Object.entries(s.properties ?? {})) walk(v, `${where}.${k}`);
    if (s.items) walk(s.items, `${where}[]`);
    for (const v of [...(s.anyOf ?? []), ...(s.oneOf ?? []), ...(s.allOf ?? [])]) walk(v, where);
  };
  for (const [path, ops] of Object.entries<any>(doc.paths)) {
    // model calls forward their bodies to the upstream, as OpenAI's (and Anthropic's) API takes them
    if (path.startsWith('/openai') || path.startsWith('/v3/openai') || path.startsWith('/v1/') || path.startsWith('/anthropic')) continue;
    for (const [method, o] of Object.entries<any>(ops)) {
      for (const p of o.parameters ?? []) walk(p.schema, `${method} ${path} ${p.in}.${p.name}`);
      walk(o.requestBody?.content?.['application/json']?.schema, `${method} ${path} body`);
    }
  }
  assert.deepEqual(unbounded, []);
});
