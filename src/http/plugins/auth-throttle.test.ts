// Failed authentication is throttled per client address and per key prefix (issue 29), through
// HTTP: wrong API keys (Authorization and x-api-key), wrong operator tokens, failed console
// sign-ins and bogus session cookies count; past the limit the address is answered 429 with
// Retry-After before its credential is checked (a right guess is not confirmed), another
// address is not affected, and the window ends with the clock.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.ts';
import { createTeam, type Team } from '../../../test/helpers/factories.ts';

const LIMIT = 5;
const ENV = { GANTRY_AUTH_FAILURES_PER_ADDRESS: String(LIMIT), GANTRY_AUTH_FAILURES_PER_PREFIX: String(LIMIT), GANTRY_AUTH_FAILURE_WINDOW_S: '60' };

/** A well-formed key no team has, with its own random prefix (or the one given: the first 7 characters). */
function wrongKey(prefix?: string): string {
  const k = `sk_${randomBytes(32).toString('base64url')}`;
  return prefix ? prefix + k.slice(prefix.length) : k;
}

let addressSeq = 0;
const newAddress = () => `198.51.100.${++addressSeq}`;

async function send(t: TestApp, url: string, from: string, headers: Record<string, string>, method: 'GET' | 'POST' = 'GET', payload?: unknown) {
  const res = await t.app.inject({
    method, url, remoteAddress: from,
    headers: { ...headers, ...(payload === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
  });
  return { status: res.statusCode, body: JSON.parse(res.body), headers: res.headers };
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

// One app for the tests at the limits above: each uses addresses (and prefixes) of its own, and
// the clock only moves forward.
let shared: { t: TestApp; team: Team } | undefined;
before(async () => {
  const t = await buildTestApp({ env: ENV });
  shared = { t, team: await createTeam(t.app, t.creds.adminToken) };
});
after(() => shared?.t.close());

async function withApp(fn: (t: TestApp, team: Team) => Promise<void>, env?: Record<string, string>): Promise<void> {
  if (!env) return fn(shared!.t, shared!.team);
  const t = await buildTestApp({ env });
  try {
    await fn(t, await createTeam(t.app, t.creds.adminToken));
  } finally {
    await t.close();
  }
}

function assertLocked(r: { status: number; body: any; headers: Record<string, unknown> }, reason: string, where: string, retryAfter = 60): void {
  assert.equal(r.status, 429, `${where}: ${JSON.stringify(r.body)}`);
  assert.equal(r.body.reason, reason, where);
  assert.equal(r.body.metadata.rule, 'auth_failures', where);
  assert.equal(r.headers['retry-after'], String(retryAfter), where);
}

test('API keys: N wrong keys from an address, then 429 with Retry-After before any key is checked; another address is unaffected; the window ends', async () => {
  await withApp(async (t, team) => {
    const attacker = newAddress();
    const models = '/openai/v1/models';
    for (let i = 0; i < LIMIT; i++) {
      const r = await send(t, models, attacker, bearer(wrongKey()));
      assert.equal(r.status, 401, `failure ${i + 1}`);
      assert.equal(r.body.reason, 'INVALID_API_KEY');
    }
    const locked = await send(t, models, attacker, bearer(team.owner.apiKey));
    assertLocked(locked, 'RATE_LIMIT_EXCEEDED', 'a right key from the locked address is not confirmed');
    assert.equal(locked.body.metadata.scope, 'address');
    assert.equal(locked.body.error.type, 'rate_limit_error', 'the OpenAI error member');
    assertLocked(await send(t, models, attacker, bearer(wrongKey())), 'RATE_LIMIT_EXCEEDED', 'a wrong one neither');
    // every family answers in its own words for a 429
    assertLocked(await send(t, '/openapi/v1/user/keys', attacker, bearer(team.owner.apiKey)), 'RATE_LIMIT_EXCEEDED', 'account family');
    assertLocked(await send(t, '/openapi/v1/billing/balance/detail', attacker, bearer(team.owner.apiKey)), 'LIST_BILL_TOO_FAST', 'billing family');
    assertLocked(await send(t, '/v3/model', attacker, bearer(team.owner.apiKey)), 'RATE_LIMIT_EXCEEDED', 'media family');

    // the same key from another address works: the lockout is the attacker's address, not the key
    const other = await send(t, models, newAddress(), bearer(team.owner.apiKey));
    assert.equal(other.status, 200, JSON.stringify(other.body));

    t.clock.advance(59_000);
    assertLocked(await send(t, models, attacker, bearer(team.owner.apiKey)), 'RATE_LIMIT_EXCEEDED', 'one second left', 1);
    t.clock.advance(1_000);
    assert.equal((await send(t, models, attacker, bearer(team.owner.apiKey))).status, 200, 'the window ended');
    assert.equal((await send(t, models, attacker, bearer(wrongKey()))).status, 401, 'a new window counts from zero');
  });
});

test('only failures of a presented credential count: successes and missing credentials do not', async () => {
  await withApp(async (t, team) => {
    const from = newAddress();
    for (let i = 0; i < 3 * LIMIT; i++) {
      assert.equal((await send(t, '/openai/v1/models', from, {})).status, 401, 'no credential');
      assert.equal((await send(t, '/openai/v1/models', from, bearer(team.owner.apiKey))).status, 200);
    }
    for (let i = 0; i < LIMIT; i++) assert.equal((await send(t, '/openai/v1/models', from, bearer(wrongKey()))).status, 401, `failure ${i + 1}`);
    assert.equal((await send(t, '/openai/v1/models', from, bearer(team.owner.apiKey))).status, 429, 'exactly N failures lock, successes in between did not reset them');
  });
});

test('concurrent wrong keys: at most N are answered 401, the rest 429', async () => {
  await withApp(async (t) => {
    const from = newAddress();
    const all = await Promise.all(Array.from({ length: 40 }, () => send(t, '/openai/v1/models', from, bearer(wrongKey()))));
    assert.equal(all.filter((r) => r.status === 401).length, LIMIT);
    assert.equal(all.filter((r) => r.status === 429).length, 40 - LIMIT);
  });
});

test('Anthropic x-api-key failures count, and the 429 is in Anthropic\'s shape', async () => {
  await withApp(async (t, team) => {
    const from = newAddress();
    const body = { model: 'gantry/sim-chat-small', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] };
    for (let i = 0; i < LIMIT; i++) {
      const r = await send(t, '/anthropic/v1/messages', from, { 'x-api-key': wrongKey(), 'anthropic-version': '2023-06-01' }, 'POST', body);
      assert.equal(r.status, 401);
      assert.equal(r.body.error.type, 'authentication_error');
    }
    const r = await send(t, '/anthropic/v1/messages', from, { 'x-api-key': team.owner.apiKey, 'anthropic-version': '2023-06-01' }, 'POST', body);
    assertLocked(r, 'RATE_LIMIT_EXCEEDED', 'x-api-key');
    assert.equal(r.body.type, 'error');
    assert.equal(r.body.error.type, 'rate_limit_error');
  });
});

test('a key prefix under attack from many addresses: attackers are refused at it, the owner of a key of that prefix is not', async () => {
  await withApp(async (t, team) => {
    const prefix = team.owner.apiKey.slice(0, 7); // what the key's mask shows
    const attackers = Array.from({ length: LIMIT }, newAddress);
    for (const a of attackers) assert.equal((await send(t, '/openai/v1/models', a, bearer(wrongKey(prefix)))).status, 401);
    // the prefix is locked: an address that failed is refused at it, even with the right key (not confirmed)
    const refused = await send(t, '/openai/v1/models', attackers[0]!, bearer(team.owner.apiKey));
    assertLocked(refused, 'RATE_LIMIT_EXCEEDED', 'an attacking address at the locked prefix');
    assert.equal(refused.body.metadata.scope, 'prefix');
    // a fresh attacking address gets its one guess, answered 429 (past the prefix's limit)
    const fresh = newAddress();
    assertLocked(await send(t, '/openai/v1/models', fresh, bearer(wrongKey(prefix))), 'RATE_LIMIT_EXCEEDED', 'a new address\'s wrong guess');
    assertLocked(await send(t, '/openai/v1/models', fresh, bearer(team.owner.apiKey)), 'RATE_LIMIT_EXCEEDED', 'and then nothing more at that prefix');
    // the owner, who never failed, keeps calling with its key from its own address
    assert.equal((await send(t, '/openai/v1/models', newAddress(), bearer(team.owner.apiKey))).status, 200);
    // and an attacking address may still use other keys (its own address is under its limit)
    assert.equal((await send(t, '/openai/v1/models', attackers[1]!, bearer(team.members.Admin.apiKey))).status, 200);
  });
});

test('operator token: N wrong tokens, then 429 (operator family) even for the right token; another address is unaffected', async () => {
  await withApp(async (t) => {
    const from = newAddress();
    for (let i = 0; i < LIMIT; i++) {
      const r = await send(t, '/admin/v1/teams', from, bearer(`gop_${randomBytes(32).toString('base64url')}`));
      assert.equal(r.status, 401);
      assert.equal(r.body.reason, 'UNAUTHORIZED');
    }
    assertLocked(await send(t, '/admin/v1/teams', from, bearer(t.creds.adminToken)), 'RATE_LIMIT_EXCEEDED', 'operator route');
    assert.equal((await send(t, '/admin/v1/teams', newAddress(), bearer(t.creds.adminToken))).status, 200);
    t.clock.advance(60_000);
    assert.equal((await send(t, '/admin/v1/teams', from, bearer(t.creds.adminToken))).status, 200, 'the window ended');
  });
});

test('console: failed sign-ins and bogus session cookies count against the address', async () => {
  await withApp(async (t, team) => {
    const from = newAddress();
    for (let i = 0; i < LIMIT - 1; i++) {
      const r = await send(t, '/console/session', from, {}, 'POST', { apiKey: wrongKey() });
      assert.equal(r.status, 401);
    }
    assert.equal((await send(t, '/console/session', from, {}, 'POST', { operatorToken: 'gop_wrong' })).status, 401, 'the operator token too');
    const locked = await send(t, '/console/session', from, {}, 'POST', { apiKey: team.owner.apiKey });
    assertLocked(locked, 'RATE_LIMIT_EXCEEDED', 'sign-in with the right key from the locked address');
    assert.equal(locked.headers['set-cookie'], undefined, 'no session was opened');
    assert.equal((await send(t, '/console/session', from, {}, 'POST', {})).status, 400, 'a malformed sign-in is not refused for the lockout: it presents nothing');

    // another address signs in; its cookie works there, and bogus cookies lock their address
    const home = newAddress();
    const ok = await send(t, '/console/session', home, {}, 'POST', { apiKey: team.owner.apiKey });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    const cookie = String(ok.headers['set-cookie']).split(';')[0]!;
    assert.equal((await send(t, '/openapi/v1/user/keys', home, { cookie })).status, 200);
    const cookieGuesser = newAddress();
    for (let i = 0; i < LIMIT; i++) {
      assert.equal((await send(t, '/openapi/v1/user/keys', cookieGuesser, { cookie: `gantry_session=${randomBytes(32).toString('base64url')}` })).status, 401);
    }
    assertLocked(await send(t, '/openapi/v1/user/keys', cookieGuesser, { cookie }), 'RATE_LIMIT_EXCEEDED', 'a real cookie from the guessing address');
    assert.equal((await send(t, '/openapi/v1/user/keys', home, { cookie })).status, 200, 'the session still works where it lives');
  });
});

test('limits of 0 turn the throttle off', async () => {
  await withApp(async (t, team) => {
    const from = newAddress();
    for (let i = 0; i < 30; i++) assert.equal((await send(t, '/openai/v1/models', from, bearer(wrongKey('sk_AAAA')))).status, 401);
    assert.equal((await send(t, '/openai/v1/models', from, bearer(team.owner.apiKey))).status, 200);
  }, { GANTRY_AUTH_FAILURES_PER_ADDRESS: '0', GANTRY_AUTH_FAILURES_PER_PREFIX: '0' });
});
