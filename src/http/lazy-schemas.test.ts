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

test('a compile that fails throws at compileAll, and stays pending', () => {
  const schemas = new LazySchemas();
  schemas.defer(() => { throw new Error('schema is invalid: type must be a string'); });
  assert.throws(() => schemas.compileAll(), /schema is invalid/);
  assert.equal(schemas.pending, 1);
});

test('the app starts with its route schemas uncompiled; a request compiles its own; every route schema compiles', async (t) => {
  const h = await buildTestApp();
  t.after(() => h.close());
  const atStart = h.schemas.pending;
  assert.ok(atStart > 100, `only ${atStart} schemas wait for their first use: the start compiled them`);
  // The first request to a route compiles its validator, and still judges it: 400 naming the field.
  const bad = await call(h.app, 'POST', '/openai/v1/chat/completions', { token: h.creds.apiKey, body: { model: 'gantry/sim-chat-small', messages: 'hi' } });
  assert.equal(bad.status, 400, JSON.stringify(bad.body));
  assert.match(JSON.stringify(bad.body), /messages/);
  const afterOne = h.schemas.pending;
  assert.ok(afterOne < atStart, 'the request compiled its route schemas');
  // A success answer goes through its compiled serializer.
  const models = await call(h.app, 'GET', '/openai/v1/models', { token: h.creds.apiKey });
  assert.equal(models.status, 200);
  assert.ok(models.body.data.some((m: { id: string }) => m.id === 'gantry/sim-chat-small'));
  assert.ok(h.schemas.pending < afterOne, 'the answer compiled its serializer');
  // Every schema of every route compiles (a broken one fails here, not at a user's first request).
  const rest = h.schemas.pending;
  assert.equal(h.schemas.compileAll(), rest);
  assert.equal(h.schemas.pending, 0);
  // and the compiled validators are the ones requests use: same answer as before
  const again = await call(h.app, 'POST', '/openai/v1/chat/completions', { token: h.creds.apiKey, body: { model: 'gantry/sim-chat-small', messages: 'hi' } });
  assert.deepEqual({ status: again.status, error: again.body.error?.message ?? again.body.message }, { status: bad.status, error: bad.body.error?.message ?? bad.body.message });
});
