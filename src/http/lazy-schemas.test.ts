import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LazySchemas } from './lazy-schemas.ts';
import { buildTestApp } from '../../test/helpers/app.ts';
import { call } from '../../test/helpers/http.ts';

test('a deferred compile runs once, at the first call; compileAll runs the rest and says how many', () => {
  const schemas = new LazySchemas();
  const runs: string[] = [];
  const a = schemas.defer(() => { runs.push('a'); return 'A'; });
  const b = schemas.defer(() => { runs.push('b'); return 'B'; });
  schemas.defer(() => { runs.push('c'); return 'C'; });
  assert.deepEqual(runs, []);
  assert.equal(schemas.pending, 3);
  assert.equal(a(), 'A');
  assert.equal(a(), 'A');
  assert.deepEqual(runs, ['a']);
  assert.equal(schemas.pending, 2);
  assert.equal(schemas.compileAll(), 2);
  assert.deepEqual(runs, ['a', 'b', 'c']);
  assert.equal(b(), 'B');
  assert.equal(schemas.pending, 0);
  assert.equal(schemas.compileAll(), 0);
});

test('a route named eager compiles at once', () => {
  const schemas = new LazySchemas();
  schemas.eager.add('POST /v1/chat');
  const runs: string[] = [];
  const chat = schemas.defer(() => { runs.push('chat'); return 'C'; }, 'POST /v1/chat');
  schemas.defer(() => { runs.push('other'); return 'O'; }, 'GET /v1/other');
  assert.deepEqual(runs, ['chat']);
  assert.equal(schemas.pending, 1);
  assert.equal(chat(), 'C');
  assert.deepEqual(runs, ['chat']);
});

test('a compile that fails throws at compileAll, and stays pending', () => {
  const schemas = new LazySchemas();
  schemas.defer(() => { throw new Error('schema is invalid: type must be a string'); });
  assert.throws(() => schemas.compileAll(), /schema is invalid/);
  assert.equal(schemas.pending, 1);
});

test('the app starts with its route schemas uncompiled but the model calls\'; a request compiles its own; every route schema compiles', async (t) => {
  const h = await buildTestApp();
  t.after(() => h.close());
  const atStart = h.schemas.pending;
  assert.ok(atStart > 100, `only ${atStart} schemas wait for their first use: the start compiled them`);
  // A model call's schemas were compiled at the start: its first request compiles nothing, and is judged.
  const chat = { model: 'gantry/sim-chat-small', messages: 'hi' };
  const bad = await call(h.app, 'POST', '/openai/v1/chat/completions', { token: h.creds.apiKey, body: chat });
  assert.equal(bad.status, 400, JSON.stringify(bad.body));
  assert.match(JSON.stringify(bad.body), /messages/);
  assert.equal(h.schemas.pending, atStart, 'nothing left to compile for a model call');
  // Any other route compiles its validator at its first request, and still judges it: 400 naming the field.
  const team = { name: '', ownerEmail: 'not-an-email' };
  const refused = await call(h.app, 'POST', '/admin/v1/teams', { token: h.creds.adminToken, body: { ...team, tier: 7 } });
  assert.equal(refused.status, 400, JSON.stringify(refused.body));
  assert.equal(refused.body.metadata?.field, 'name');
  const afterOne = h.schemas.pending;
  assert.ok(afterOne < atStart, 'the request compiled its route schemas');
  // A success answer goes through its serializer, compiled at that answer.
  const models = await call(h.app, 'GET', '/openapi/v1/billing/balance/detail', { token: h.creds.apiKey });
  assert.equal(models.status, 200, JSON.stringify(models.body));
  assert.equal(typeof models.body.availableBalance, 'string');
  assert.ok(h.schemas.pending < afterOne, 'the answer compiled its serializer');
  // Every schema of every route compiles (a broken one fails here, not at a user's first request).
  const rest = h.schemas.pending;
  assert.equal(h.schemas.compileAll(), rest);
  assert.equal(h.schemas.pending, 0);
  // and the compiled validators are the ones requests use: same answers as before
  for (const [res, again] of [[bad, await call(h.app, 'POST', '/openai/v1/chat/completions', { token: h.creds.apiKey, body: chat })],
    [refused, await call(h.app, 'POST', '/admin/v1/teams', { token: h.creds.adminToken, body: { ...team, tier: 7 } })]] as const) {
    assert.deepEqual({ status: again.status, body: again.body }, { status: res.status, body: res.body });
  }
});
