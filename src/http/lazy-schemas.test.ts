import { test } from 'node:test';
import assert from 'node:assert/strict';
import Fastify from 'fastify';
import { Type } from 'typebox';
import { LazySchemas } from './lazy-schemas.ts';
import { registerValidation } from './plugins/validation.ts';
import type { App } from './types.ts';
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

test('the same schema compiles once: a later defer of it gets the first getter; an eager route compiles it then', () => {
  const schemas = new LazySchemas();
  schemas.eager.add('POST /v1/chat');
  const runs: string[] = [];
  const a = schemas.defer(() => { runs.push('a'); return 'A'; }, 'GET /v1/a', 'schema 1');
  const b = schemas.defer(() => { runs.push('b'); return 'B'; }, 'GET /v1/b', 'schema 1');
  assert.equal(a, b);
  assert.equal(schemas.pending, 1);
  schemas.defer(() => { runs.push('chat'); return 'C'; }, 'POST /v1/chat', 'schema 1');
  assert.deepEqual(runs, ['a'], 'the eager route compiled the shared schema, once');
  assert.equal(schemas.pending, 0);
  assert.equal(b(), 'A');
  assert.equal(schemas.defer(() => 'D', 'GET /v1/d', 'schema 2')(), 'D');
});

test('a body and a query string with the same schema keep their own validators: the query coerces text, the body does not', async (t) => {
  const schemas = new LazySchemas();
  const app = Fastify({ schemaController: { compilersFactory: { buildSerializer: schemas.serializers() } } }) as unknown as App;
  t.after(() => app.close());
  registerValidation(app, schemas);
  const N = () => Type.Object({ n: Type.Integer() });
  const Out = Type.Object({ n: Type.Integer(), kind: Type.String() });
  app.get('/q', { schema: { querystring: N(), response: { 200: Out } } }, async (req) => ({ n: (req.query as { n: number }).n, kind: typeof (req.query as { n: unknown }).n, dropped: 1 }));
  app.post('/b', { schema: { body: N(), response: { 200: Out } } }, async (req) => ({ n: (req.body as { n: number }).n, kind: typeof (req.body as { n: unknown }).n, dropped: 1 }));
  await app.ready();
  assert.equal(schemas.pending, 3, 'two validators and one serializer for the two routes\' identical 200 answers');
  const q = await app.inject({ method: 'GET', url: '/q?n=5' });
  assert.deepEqual([q.statusCode, q.json()], [200, { n: 5, kind: 'number' }]);
  const bad = await app.inject({ method: 'POST', url: '/b', payload: { n: '5' } });
  assert.equal(bad.statusCode, 400, bad.body);
  const good = await app.inject({ method: 'POST', url: '/b', payload: { n: 5 } });
  assert.deepEqual([good.statusCode, good.json()], [200, { n: 5, kind: 'number' }], 'the shared serializer drops what its schema does not list');
  assert.equal(schemas.pending, 0);
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
  assert.ok(atStart > 50, `only ${atStart} schemas wait for their first use: the start compiled them`);
  // Fastify asks for a validator or serializer per route, part and status (over 1,200); alike ones are one
  assert.ok(h.schemas.asked > 1000, `Fastify asked for ${h.schemas.asked} schemas`);
  // (a ratio, not a count: each new route adds a few distinct ones; without the sharing they are one per ask)
  assert.ok(h.schemas.distinct < h.schemas.asked / 4, `${h.schemas.distinct} distinct schemas of ${h.schemas.asked}: alike ones are compiled once`);
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
