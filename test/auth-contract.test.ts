// The auth contract, run against every registered route: no key, a malformed key and a
// revoked key → 401; a role the table forbids → 403; operator routes refuse tenant keys.
// Role on role: every route that acts on a member or a key, by every role on every role
// (only an Owner acts on an Owner), answers as the matrix says and changes nothing when refused.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp, type TestApp } from './helpers/app.ts';
import { as, call, type Res } from './helpers/http.ts';
import { createTeam, type Team } from './helpers/factories.ts';
import { CAPABILITIES, ROLES, can, type Capability, type Role } from '../src/domain/roles.ts';
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

// /blobs/* is public by design: its links carry their own HMAC signature and expiry (store/blobs).
// The console's files are public; its session routes check the session cookie themselves.
// An instance's web terminal (a WebSocket: browsers send no Authorization on one) is public
// by design too: its URL's ticket is signed, short-lived, used once, and the caller's key and
// role are checked again at connect (domain/terminals, src/http/routes/compute/terminal.engines.test.ts).
// An instance's ports sign their caller in themselves (an API key, a link's ticket, the port's
// cookie: gateway/ports/ports.ts portCaller): no key, a foreign or a revoked one are refused in
// src/gateway/ports/ports.test.ts.
// `/` only says where the console and the API reference are (http/routes/system/root.ts).
// Stripe's webhook carries no Gantry key: it is trusted only through its Stripe-Signature over
// the exact body (a wrong, stale or missing one is a 400 that writes nothing:
// src/http/routes/payments/payments.test.ts).
const PUBLIC = ['/', '/ports/:instanceId/:port', '/ports/:instanceId/:port/*','/healthz', '/readyz', '/metrics', '/openapi.json', '/docs/', '/docs/js/scalar.js', '/blobs/*', '/console', '/console/*', '/console/session',
  '/gpu-instance/openapi/v1/gpu/instance/terminal', '/openapi/v1/payments/stripe/webhook',
  // persons: sign-up, links and invitations are answered to anyone (the link's token or the
  // password is the credential, checked there, src/http/routes/accounts/accounts.test.ts); a
  // person's own account routes check the person session's cookie and CSRF token themselves
  '/console/sign-up', '/console/confirm', '/console/password/forgot', '/console/password/reset', '/console/password',
  '/console/invitations/accept', '/console/session/team', '/console/sessions', '/console/sessions/:sessionId',
  '/console/two-factor', '/console/two-factor/confirm', '/console/two-factor/disable', '/console/email', '/console/email/confirm',
  '/console/operator-invitation/accept'];

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
  const undeclared = h.routes.filter((r) => !r.auth);
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

test('endpoint metrics (a Gantry extension) are read as endpoints are: roles that read compute reach the endpoint lookup, others 403', async () => {
  for (const role of ROLES) {
    const r = await call(h.app, 'GET', '/gpu-instance/openapi/v1/endpoint/metrics?id=ep-none', { token: team.members[role].apiKey });
    if (can(role, 'readCompute')) assert.deepEqual([r.status, r.body.reason], [400, 'SERVERLESS_ENDPOINT_NOT_FOUND'], role);
    else assert.deepEqual([r.status, r.body.reason], [403, 'FORBIDDEN'], role);
  }
});

test('log routes (serverless endpoint and worker, GPU instance) are tenant routes of the readers of compute', () => {
  const logs = routes('key').filter((r) => r.url.endsWith('/log')).map((r) => `${r.method} ${r.url} ${r.auth?.kind === 'key' ? r.auth.capability : ''}`).sort();
  assert.deepEqual(logs, ['endpoint/log', 'endpoint/worker/log', 'gpu/instance/log'].map((p) => `GET /gpu-instance/openapi/v1/${p} readCompute`));
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

// ---- role on role ----

/** A member of the team acted upon, with a key of its own. */
interface Target {
  role: Role;
  memberId: string;
  keyId: string;
  email: string;
}

/** One operation of one member on another member (or its key), and what a reader sees of its effect. */
interface Action {
  name: string;
  route: string;
  capability: Capability;
  /** acting roles to whom another member's key does not exist (404, as for a key of another team) */
  hiddenFrom?: Role[];
  setup?(t: Target): Promise<void>;
  act(token: string, t: Target): Promise<Res>;
  state(t: Target): Promise<unknown>;
}

const POLICY = (keyId: string) => `/openapi/v2/user/key/${keyId}/model-access-policy`;
const MEMBER_POLICY = (memberId: string) => `/openapi/v2/user/member/${memberId}/model-access-policy`;
const budget = { budget_type: 'One-time', budget_limit: 20000 };

function actions(): Action[] {
  const owner = as(h.app, team.owner.apiKey);
  const operator = as(h.app, h.creds.adminToken);
  const member = async (t: Target) => {
    const r = await operator.get(`/admin/v1/teams/${team.userId}/members`);
    return r.body.members.find((m: { memberId: string }) => m.memberId === t.memberId) ?? null;
  };
  const policy = async (t: Target) => {
    const r = await owner.get(POLICY(t.keyId));
    return [r.status, r.body.policy?.source?.type, r.body.updatedBy];
  };
  const memberPolicy = async (t: Target) => {
    const r = await owner.get(MEMBER_POLICY(t.memberId));
    return [r.status, r.body.policy?.source?.type, r.body.updatedBy];
  };
  return [
    {
      name: 'revoke a key', route: 'POST /openapi/v1/user/keys/:keyId/revoke', capability: 'manageOwnKeys', hiddenFrom: ['Developer', 'Basic'],
      act: (token, t) => call(h.app, 'POST', `/openapi/v1/user/keys/${t.keyId}/revoke`, { token, body: {} }),
      state: async (t) => (await owner.get('/openapi/v1/user/keys', { member_id: t.memberId })).body.keys.find((k: { keyId: string }) => k.keyId === t.keyId)?.status,
    },
    {
      name: 'change the role', route: 'POST /openapi/v1/user/team/members/:memberId/role', capability: 'manageMembers',
      act: (token, t) => call(h.app, 'POST', `/openapi/v1/user/team/members/${t.memberId}/role`, { token, body: { role: t.role === 'Basic' ? 'Developer' : 'Basic' } }),
      state: member,
    },
    {
      name: 'disable the member', route: 'POST /openapi/v1/user/team/members/:memberId/disable', capability: 'manageMembers',
      act: (token, t) => call(h.app, 'POST', `/openapi/v1/user/team/members/${t.memberId}/disable`, { token, body: {} }),
      state: member,
    },
    {
      name: 'set the member budget', route: 'PUT /openapi/v1/user/team/budget', capability: 'manageMembers',
      act: (token, t) => call(h.app, 'PUT', '/openapi/v1/user/team/budget', { token, body: { member_id: t.memberId, ...budget } }),
      state: async (t) => (await owner.get('/openapi/v1/user/team/budget-list')).body.budgets.find((b: { member_id: string }) => b.member_id === t.memberId),
    },
    {
      name: 'set a key budget', route: 'PUT /openapi/v1/user/team/key-budget', capability: 'updateKeyBudget',
      act: (token, t) => call(h.app, 'PUT', '/openapi/v1/user/team/key-budget', { token, body: { member_id: t.memberId, key_id: t.keyId, ...budget } }),
      state: async (t) => (await owner.get('/openapi/v1/user/team/key-budget-list', { member_id: t.memberId })).body.key_budgets,
    },
    {
      name: 'set a key policy', route: 'PUT /openapi/v2/user/key/:stringId/model-access-policy', capability: 'writePolicy',
      act: (token, t) => call(h.app, 'PUT', POLICY(t.keyId), { token, body: { mode: 'all_enabled' } }),
      state: policy,
    },
    {
      name: 'delete a key policy', route: 'DELETE /openapi/v2/user/key/:stringId/model-access-policy', capability: 'writePolicy',
      setup: async (t) => assert.equal((await owner.put(POLICY(t.keyId), { mode: 'all_enabled' })).status, 200),
      act: (token, t) => call(h.app, 'DELETE', POLICY(t.keyId), { token }),
      state: policy,
    },
    {
      name: 'set a member policy', route: 'PUT /openapi/v2/user/member/:memberId/model-access-policy', capability: 'writePolicy',
      act: (token, t) => call(h.app, 'PUT', MEMBER_POLICY(t.memberId), { token, body: { mode: 'all_enabled' } }),
      state: memberPolicy,
    },
    {
      name: 'delete a member policy', route: 'DELETE /openapi/v2/user/member/:memberId/model-access-policy', capability: 'writePolicy',
      setup: async (t) => assert.equal((await owner.put(MEMBER_POLICY(t.memberId), { mode: 'all_enabled' })).status, 200),
      act: (token, t) => call(h.app, 'DELETE', MEMBER_POLICY(t.memberId), { token }),
      state: memberPolicy,
    },
    {
      name: 'set the default key budget', route: 'PUT /openapi/v1/user/team/default-key-budget', capability: 'updateKeyBudget',
      act: (token, t) => call(h.app, 'PUT', '/openapi/v1/user/team/default-key-budget', { token, body: { member_id: t.memberId, ...budget } }),
      state: async (t) => (await owner.get('/openapi/v1/user/team/default-key-budget', { member_id: t.memberId })).body,
    },
    {
      name: 'add a member in the role', route: 'POST /openapi/v1/user/team/members', capability: 'manageMembers',
      act: (token, t) => call(h.app, 'POST', '/openapi/v1/user/team/members', { token, body: { email: `new-${t.email}`, role: t.role } }),
      state: async (t) => (await operator.get(`/admin/v1/teams/${team.userId}/members`)).body.members.some((m: { email: string }) => m.email === `new-${t.email}`),
    },
  ];
}

/** The matrix: the route's capability, then who may see the key, then "only an Owner acts on an Owner". */
function expected(a: Action, actor: Role, target: Role): 200 | 403 | 404 {
  if (!can(actor, a.capability)) return 403;
  if (a.hiddenFrom?.includes(actor)) return 404;
  if (target === 'Owner' && actor !== 'Owner') return 403;
  return 200;
}

let targetSeq = 0;
async function newTarget(role: Role): Promise<Target> {
  const operator = as(h.app, h.creds.adminToken);
  const email = `target-${++targetSeq}-${role.toLowerCase()}@${team.userId}.example.com`;
  const m = await operator.post(`/admin/v1/teams/${team.userId}/members`, { email, role });
  assert.equal(m.status, 200, JSON.stringify(m.body));
  const k = await operator.post(`/admin/v1/members/${m.body.memberId}/keys`, { name: 'target' });
  assert.equal(k.status, 200, JSON.stringify(k.body));
  return { role, memberId: m.body.memberId, keyId: k.body.keyId, email };
}

test('every route that acts on a member or a key is in the role-on-role matrix', () => {
  const covered = new Set(actions().map((a) => a.route));
  const acting = h.routes.filter((r) => r.auth?.kind === 'key' && r.method !== 'GET' && /:(memberId|keyId|stringId)\b/.test(r.url));
  assert.ok(acting.length >= 5);
  for (const r of acting) assert.ok(covered.has(`${r.method} ${r.url}`), `${r.method} ${r.url} acts on a member or key but is not in the matrix`);
  for (const route of covered) assert.ok(h.routes.some((r) => `${r.method} ${r.url}` === route), `${route} is not a registered route`);
});

test('role on role: every role on every role, as the matrix says; a refusal changes nothing', async () => {
  let refused = 0;
  let allowed = 0;
  for (const a of actions()) {
    // a target is used until an action changes it
    const fresh = new Map<Role, Target>();
    for (const actor of ROLES) {
      for (const targetRole of ROLES) {
        const t = fresh.get(targetRole) ?? await newTarget(targetRole);
        fresh.set(targetRole, t);
        await a.setup?.(t);
        const before = await a.state(t);
        const r = await a.act(team.members[actor].apiKey, t);
        const want = expected(a, actor, targetRole);
        const where = `${actor} → ${a.name} of ${targetRole}`;
        assert.equal(r.status, want, `${where}: ${JSON.stringify(r.body)}`);
        if (want === 200) {
          assert.notDeepEqual(await a.state(t), before, `${where}: answered 200 but nothing changed`);
          fresh.delete(targetRole);
          allowed++;
          continue;
        }
        assert.deepEqual(await a.state(t), before, `${where}: refused, yet something changed`);
        assertErrorBody(r.body, want, where);
        if (want === 403) assert.equal(r.body.reason, 'FORBIDDEN', where);
        if (want === 403 && can(actor, a.capability)) assert.match(String(r.body.metadata.rule), /only an Owner (acts on|makes) an Owner/, where);
        refused++;
      }
    }
  }
  assert.ok(allowed > 30 && refused > 60, `allowed ${allowed}, refused ${refused}`);
});
