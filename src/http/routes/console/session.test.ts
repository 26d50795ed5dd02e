// The console session through HTTP: signing in with a key (or the operator token) sets an
// HttpOnly SameSite=Strict cookie; the cookie acts as the key on the public API, with its
// CSRF token on every change; roles, revocation and rotation apply as to the key; signing
// out ends it server-side.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp, type TestApp } from '../../../../test/helpers/app.ts';
import { as, call } from '../../../../test/helpers/http.ts';
import { createTeam, type Team } from '../../../../test/helpers/factories.ts';
import { rotateOperatorToken } from '../../../domain/operator-token.ts';
import { standaloneCtx } from '../../../domain/context.ts';

let h: TestApp;
let team: Team;
before(async () => {
  h = await buildTestApp();
  team = await createTeam(h.app, h.creds.adminToken);
});
after(() => h.close());

interface Session { cookie: string; csrf: string; body: any; setCookie: string }

async function signIn(creds: Record<string, string>): Promise<Session> {
  const res = await h.app.inject({ method: 'POST', url: '/console/session', payload: creds });
  assert.equal(res.statusCode, 200, res.body);
  const setCookie = String(res.headers['set-cookie']);
  const m = /^gantry_session=([A-Za-z0-9_-]+);/.exec(setCookie);
  assert.ok(m, setCookie);
  const body = JSON.parse(res.body);
  return { cookie: `gantry_session=${m[1]}`, csrf: body.csrfToken, body, setCookie };
}

function withSession(s: Session, method: string, url: string, opts: { body?: unknown; csrf?: string | null; headers?: Record<string, string> } = {}) {
  const headers: Record<string, string> = { cookie: s.cookie, ...opts.headers };
  const csrf = opts.csrf === undefined ? s.csrf : opts.csrf;
  if (csrf !== null) headers['x-csrf-token'] = csrf;
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  return h.app.inject({ method: method as 'GET', url, headers, ...(opts.body !== undefined ? { payload: JSON.stringify(opts.body) } : {}) })
    .then((r) => ({ status: r.statusCode, body: r.body ? JSON.parse(r.body) : undefined, headers: r.headers }));
}

test('signing in with a key sets an HttpOnly SameSite=Strict cookie and never returns the key', async () => {
  const s = await signIn({ apiKey: team.owner.apiKey });
  assert.match(s.setCookie, /; HttpOnly/);
  assert.match(s.setCookie, /; SameSite=Strict/);
  assert.match(s.setCookie, /; Path=\//);
  assert.doesNotMatch(s.setCookie, /Secure/, 'plain http here: GANTRY_PUBLIC_URL is not https');
  assert.equal(s.body.kind, 'key');
  assert.equal(s.body.principal.memberId, team.owner.memberId);
  assert.equal(s.body.principal.role, 'Owner');
  assert.ok(s.body.capabilities.includes('manageMembers'));
  assert.ok(!JSON.stringify(s.body).includes(team.owner.apiKey));
  assert.ok(!s.setCookie.includes(team.owner.apiKey));
  const again = await withSession(s, 'GET', '/console/session');
  assert.equal(again.status, 200);
  assert.equal(again.body.csrfToken, s.csrf);
});

test('the cookie acts as the key on the public API: reads without CSRF, changes only with it', async () => {
  const s = await signIn({ apiKey: team.owner.apiKey });
  const keys = await withSession(s, 'GET', '/openapi/v1/user/keys', { csrf: null });
  assert.equal(keys.status, 200);
  assert.ok(keys.body.keys.some((k: any) => k.keyId === team.owner.keyId));

  const noCsrf = await withSession(s, 'POST', '/openapi/v1/user/keys', { body: { name: 'x' }, csrf: null });
  assert.equal(noCsrf.status, 403);
  assert.match(noCsrf.body.message, /x-csrf-token/);
  const wrong = await withSession(s, 'POST', '/openapi/v1/user/keys', { body: { name: 'x' }, csrf: 'A'.repeat(32) });
  assert.equal(wrong.status, 403);
  const listed = await as(h.app, team.owner.apiKey).get('/openapi/v1/user/keys');
  assert.ok(!listed.body.keys.some((k: any) => k.name === 'x'), 'nothing was created by the refused calls');

  const ok = await withSession(s, 'POST', '/openapi/v1/user/keys', { body: { name: 'from-console' } });
  assert.equal(ok.status, 200);
  assert.match(ok.body.apiKey, /^sk_/);
});

test('roles apply as with the key: a Basic session is refused what Basic is refused', async () => {
  const s = await signIn({ apiKey: team.members.Basic.apiKey });
  assert.ok(!s.body.capabilities.includes('manageMembers'));
  assert.ok(s.body.capabilities.includes('readCompute'));
  assert.equal((await withSession(s, 'GET', '/openapi/v1/user/team/members')).status, 403);
  assert.equal((await withSession(s, 'GET', '/gpu-instance/openapi/v1/gpu/instances')).status, 200);
  // a key session does not open operator routes
  assert.equal((await withSession(s, 'GET', '/admin/v1/teams')).status, 401);
});

test('an explicit Authorization header wins over the cookie', async () => {
  const s = await signIn({ apiKey: team.members.Basic.apiKey });
  const res = await withSession(s, 'GET', '/openapi/v1/user/team/members', { headers: { authorization: `Bearer ${team.owner.apiKey}` } });
  assert.equal(res.status, 200);
});

test('revoking the key ends what its session may do', async () => {
  const k = await as(h.app, h.creds.adminToken).post(`/admin/v1/members/${team.members.Developer.memberId}/keys`, { name: 'short' });
  const s = await signIn({ apiKey: k.body.apiKey });
  assert.equal((await withSession(s, 'GET', '/openapi/v1/user/keys')).status, 200);
  assert.equal((await as(h.app, h.creds.adminToken).post(`/admin/v1/keys/${k.body.keyId}/revoke`, {})).status, 200);
  assert.equal((await withSession(s, 'GET', '/openapi/v1/user/keys')).status, 401);
  assert.equal((await withSession(s, 'GET', '/console/session')).status, 401);
});

test('signing out ends the session server-side: the same cookie is refused afterwards', async () => {
  const s = await signIn({ apiKey: team.owner.apiKey });
  assert.equal((await withSession(s, 'DELETE', '/console/session', { csrf: null })).status, 403, 'sign-out needs the CSRF token too');
  const out = await withSession(s, 'DELETE', '/console/session');
  assert.equal(out.status, 200);
  assert.match(String(out.headers['set-cookie']), /gantry_session=; .*Max-Age=0/);
  assert.equal((await withSession(s, 'GET', '/openapi/v1/user/keys')).status, 401);
  assert.equal((await withSession(s, 'GET', '/console/session')).status, 401);
});

test('a bad sign-in is refused with its reason, and sets no cookie', async () => {
  for (const [payload, status] of [
    [{}, 400], [{ apiKey: team.owner.apiKey, operatorToken: 'x' }, 400],
    [{ apiKey: 'sk_' + 'A'.repeat(43) }, 401], [{ apiKey: 'nope' }, 401], [{ operatorToken: 'gop_wrong' }, 401],
  ] as const) {
    const res = await h.app.inject({ method: 'POST', url: '/console/session', payload });
    assert.equal(res.statusCode, status, `${JSON.stringify(payload)}: ${res.body}`);
    assert.equal(res.headers['set-cookie'], undefined);
    assert.equal(typeof JSON.parse(res.body).message, 'string');
  }
});

test('the session expires after GANTRY_CONSOLE_SESSION_HOURS', async () => {
  const s = await signIn({ apiKey: team.owner.apiKey });
  assert.match(s.setCookie, /Max-Age=43200/);
  h.clock.advance(12 * 3_600_000 + 1);
  assert.equal((await withSession(s, 'GET', '/openapi/v1/user/keys')).status, 401);
});

test('an operator session opens operator routes only, and ends when the token is rotated', async () => {
  const s = await signIn({ operatorToken: h.creds.adminToken });
  assert.equal(s.body.kind, 'operator');
  assert.deepEqual(s.body.capabilities, []);
  assert.equal((await withSession(s, 'GET', '/admin/v1/teams')).status, 200);
  assert.equal((await withSession(s, 'POST', `/admin/v1/teams/${team.userId}/suspend`, { body: { suspended: false }, csrf: null })).status, 403);
  assert.equal((await withSession(s, 'GET', '/openapi/v1/user/keys')).status, 401, 'an operator session is not a member');
  await rotateOperatorToken(standaloneCtx(h.store.db, h.clock));
  // the verifier re-reads the hash within the key-cache TTL (≤ 1 s of wall time)
  let status = 200;
  for (let i = 0; i < 100 && status === 200; i++) {
    status = (await withSession(s, 'GET', '/admin/v1/teams')).status;
    if (status === 200) await new Promise((r) => setTimeout(r, 50));
  }
  assert.equal(status, 401);
});

test('the console page and its modules are served with their types, caching and compression', async () => {
  const page = await h.app.inject({ method: 'GET', url: '/console', headers: { 'accept-encoding': 'gzip' } });
  assert.equal(page.statusCode, 200);
  assert.match(String(page.headers['content-type']), /^text\/html/);
  assert.equal(page.headers['content-encoding'], 'gzip');
  assert.equal(page.headers['cache-control'], 'no-cache');
  assert.match(String(page.headers['content-security-policy']), /script-src 'self' 'sha256-/);
  const html = (await h.app.inject({ method: 'GET', url: '/console/' })).body;
  const map = JSON.parse(/<script type="importmap">(.*?)<\/script>/.exec(html)![1]!).imports as Record<string, string>;
  const preact = await h.app.inject({ method: 'GET', url: map.preact!, headers: { 'accept-encoding': 'br, gzip' } });
  assert.equal(preact.statusCode, 200);
  assert.match(String(preact.headers['content-type']), /^text\/javascript/);
  assert.equal(preact.headers['content-encoding'], 'br');
  assert.match(String(preact.headers['cache-control']), /immutable/);
  const main = await h.app.inject({ method: 'GET', url: '/console/main.js' });
  assert.equal(main.statusCode, 200);
  const etag = String(main.headers.etag);
  assert.equal((await h.app.inject({ method: 'GET', url: '/console/main.js', headers: { 'if-none-match': etag } })).statusCode, 304);
  const missing = await call(h.app, 'GET', '/console/nope.js');
  assert.equal(missing.status, 404);
  assert.equal(typeof missing.body.message, 'string');
  assert.equal((await call(h.app, 'GET', '/console/../package.json')).status, 404);
  assert.equal((await call(h.app, 'GET', '/console/tsconfig.json')).status, 404, 'the console\'s type-check project is no asset');
  assert.equal((await h.app.inject({ method: 'GET', url: '/console/money.js' })).statusCode, 200, 'a module beside it is');
});
