// The auth contract, run against every registered route: no key, a malformed key and a
// revoked key → 401; a role the table forbids → 403; operator routes refuse tenant keys.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp, type TestApp } from './helpers/app.ts';
import { call } from './helpers/http.ts';
import { createTeam, type Team } from './helpers/factories.ts';
import { CAPABILITIES, ROLES } from '../src/domain/roles.ts';
import type { RouteEntry } from '../src/app.ts';

let h: TestApp;
let team: Team;
let revokedKey: string;

before(async () => {
  h = await buildTestApp();
  team = await createTeam(h.app, h.creds.adminToken);
  const k = await call(h.app, 'POST', `/admin/v1/members/${team.members.Developer.memberId}/keys`, { token: h.creds.adminToken, body: { name: 'to-revoke' } });
  revokedKey = k.body.apiKey;
  assert.equal((await call(h.app, 'POST', `/admin/v1/keys/${k.body.keyId}/revoke`, { token: h.creds.adminToken, body: {} })).status, 200);
});
after(() => h.close());

const PUBLIC = ['/healthz', '/metrics', '/openapi.json'];

function concrete(url: string): string {
  return url.replace(/:[A-Za-z_]+/g, 'x_param').replace(/\*$/, 'org/model');
}

function routes(kind: string): RouteEntry[] {
  return h.routes.filter((r) => r.auth?.kind === kind);
}

function assertErrorBody(body: any, status: number, where: string): void {
  assert.equal(body.code, status, where);
  assert.equal(typeof body.reason, 'string', where);
  assert.equal(typeof body.message, 'string', where);
  assert.equal(typeof body.metadata, 'object', where);
}

test('every route declares who may call it; only the known public routes are public', () => {
  const undeclared = h.routes.filter((r) => !r.auth && !r.url.startsWith('/docs'));
  assert.deepEqual(undeclared, []);
  const pub = routes('public').map((r) => r.url).filter((u) => !PUBLIC.includes(u));
  assert.deepEqual(pub, []);
  assert.ok(routes('key').length >= 20, 'tenant routes are registered');
});

test('tenant routes: no key, malformed key, revoked key → 401', async () => {
  for (const r of routes('key')) {
    const url = concrete(r.url);
    const where = `${r.method} ${r.url}`;
    for (const authorization of [undefined, 'Bearer not-a-key', 'Bearer sk_' + 'A'.repeat(43), `Bearer ${revokedKey}`]) {
      const res = await h.app.inject({ method: r.method as 'GET', url, headers: authorization ? { authorization } : {} });
      assert.equal(res.statusCode, 401, `${where} with ${authorization ?? 'no key'}: ${res.body}`);
      assertErrorBody(JSON.parse(res.body), 401, where);
    }
  }
});

test('tenant routes: a role the table forbids → 403 FORBIDDEN', async () => {
  let checked = 0;
  for (const r of routes('key')) {
    const cap = r.auth?.kind === 'key' ? r.auth.capability : undefined;
    if (!cap) continue;
    for (const role of ROLES.filter((x) => !(CAPABILITIES[cap] as readonly string[]).includes(x))) {
      const res = await call(h.app, r.method, concrete(r.url), { token: team.members[role].apiKey, ...(r.method === 'GET' || r.method === 'DELETE' ? {} : { body: {} }) });
      assert.equal(res.status, 403, `${r.method} ${r.url} as ${role}: ${JSON.stringify(res.body)}`);
      assertErrorBody(res.body, 403, r.url);
      checked++;
    }
  }
  assert.ok(checked > 10);
});

test('operator routes: no token, a wrong token, or a tenant key → 401', async () => {
  const ops = routes('operator');
  assert.ok(ops.length >= 20);
  for (const r of ops) {
    for (const authorization of [undefined, 'Bearer gop_wrong', `Bearer ${team.owner.apiKey}`]) {
      const res = await h.app.inject({ method: r.method as 'GET', url: concrete(r.url), headers: authorization ? { authorization } : {} });
      assert.equal(res.statusCode, 401, `${r.method} ${r.url}: ${res.body}`);
      assertErrorBody(JSON.parse(res.body), 401, r.url);
    }
  }
});

test('the bare key without "Bearer" is accepted (compat decision)', async () => {
  const res = await h.app.inject({ method: 'GET', url: '/openapi/v1/billing/balance/detail', headers: { authorization: team.owner.apiKey } });
  assert.equal(res.statusCode, 200);
});

test('a disabled member\'s keys and a suspended team\'s keys stop working', async () => {
  const admin = h.creds.adminToken;
  const t = await createTeam(h.app, admin);
  const url = '/openapi/v1/user/quota/list';
  assert.equal((await call(h.app, 'GET', url, { token: t.members.Basic.apiKey })).status, 200);
  await call(h.app, 'POST', `/admin/v1/members/${t.members.Basic.memberId}/disable`, { token: admin, body: {} });
  assert.equal((await call(h.app, 'GET', url, { token: t.members.Basic.apiKey })).status, 401);
  await call(h.app, 'POST', `/admin/v1/teams/${t.userId}/suspend`, { token: admin, body: {} });
  const r = await call(h.app, 'GET', url, { token: t.owner.apiKey });
  assert.equal(r.status, 403);
  await call(h.app, 'POST', `/admin/v1/teams/${t.userId}/suspend`, { token: admin, body: { suspended: false } });
  assert.equal((await call(h.app, 'GET', url, { token: t.owner.apiKey })).status, 200);
});
