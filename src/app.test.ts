import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp } from '../test/helpers/app.ts';
import { call } from '../test/helpers/http.ts';
import { VIDEO_OPS } from './domain/media/codes.ts';

// One app for the file: every test only reads (health, the OpenAPI document, a 404), and the
// document is built once per app (a third of this file's time when each test built its own).
const shared = buildTestApp();
after(async () => (await shared).close());

test('health, metrics, OpenAPI document and docs page are served', async () => {
  const h = await shared;
  assert.equal((await call(h.app, 'GET', '/healthz')).body.status, 'ok');
  const ready = await call(h.app, 'GET', '/readyz');
  assert.equal(ready.status, 200, JSON.stringify(ready.body));
  assert.equal(ready.body.status, 'ready');
  const metrics = await call(h.app, 'GET', '/metrics');
  assert.equal(metrics.status, 200);
  assert.match(String(metrics.body), /gantry_http_requests_total/);
  assert.match(String(metrics.body), /\ngantry_usage_pending_records \d+\n/);
  assert.match(String(metrics.body), /\ngantry_usage_failed_records 0\n/);
  const doc = await call(h.app, 'GET', '/openapi.json');
  assert.equal(doc.status, 200);
  assert.match(doc.body.openapi, /^3\./);
  // every registered route is documented, with its method
  const documented = h.routes.filter((r) => r.url !== '/openapi.json' && !r.url.startsWith('/docs'));
  assert.ok(documented.length > 40);
  for (const r of documented) {
    const path = r.url.replace(/:([A-Za-z_]+)/g, '{$1}').replace(/\*$/, '{*}');
    const entry = doc.body.paths[path];
    assert.ok(entry, `${path} missing from /openapi.json`);
    assert.ok(entry[r.method.toLowerCase()], `${r.method} ${path} missing from /openapi.json`);
  }
  assert.equal((await call(h.app, 'GET', '/docs/')).status, 200);
});

// Routes whose success answer is not documented yet, each with why. Keep it empty.
/** Operations that never succeed, each with why (the vendor's client calls them: they refuse by name, never 404). */
const NO_SUCCESS_SCHEMA: Record<string, string> = Object.fromEntries(VIDEO_OPS.map((op) => [`POST /v3/async/${op}`, 'video generation is not served (domain/media/video.ts)']));

test('every operation in /openapi.json documents a 2xx answer with its schema, and its errors as ErrorBody', async () => {
  const h = await shared;
  const doc = (await call(h.app, 'GET', '/openapi.json')).body;
  const errorBody = Object.entries<any>(doc.components.schemas).find(([, s]) => s.$id === 'ErrorBody' || s.title === 'ErrorBody')?.[0];
  let operations = 0;
  for (const [path, ops] of Object.entries<any>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(ops)) {
      const name = `${method.toUpperCase()} ${path}`;
      operations++;
      for (const [status, res] of Object.entries<any>(op.responses)) {
        if (status.startsWith('2') || status === '204') continue;
        for (const media of Object.values<any>(res.content ?? {})) {
          assert.ok(errorBody && media.schema.$ref === `#/components/schemas/${errorBody}`, `${name} ${status} is not ErrorBody: ${JSON.stringify(media.schema)}`);
        }
      }
      if (NO_SUCCESS_SCHEMA[name]) continue;
      // a WebSocket's success is its handshake, 101 Switching Protocols, with no body
      const success = Object.entries<any>(op.responses).filter(([status]) => status.startsWith('2') || status === '101');
      assert.ok(success.length > 0, `${name}: no 2xx (or 101) response`);
      for (const [status, res] of success) {
        if (status === '204' || status === '101') continue;
        const media = Object.entries<any>(res.content ?? {});
        assert.ok(media.length > 0 && media.every(([, m]) => m.schema && Object.keys(m.schema).length > 0), `${name} ${status}: no response schema`);
      }
    }
  }
  assert.ok(operations > 40);
  // The model routes: the LLM answers (documented only, see config.docResponses) and the stream.
  for (const base of ['/openai/v1', '/openai', '/v3/openai', '/v1']) {
    for (const p of ['chat/completions', 'completions']) {
      const ok = doc.paths[`${base}/${p}`].post.responses['200'].content;
      assert.deepEqual(Object.keys(ok).sort(), ['application/json', 'text/event-stream'], `${base}/${p}`);
      assert.match(ok['text/event-stream'].schema.description, /data: \[DONE\]/);
    }
    const chat = doc.paths[`${base}/chat/completions`].post.responses;
    assert.equal(chat['200'].content['application/json'].schema.properties.object.enum[0], 'chat.completion');
    assert.deepEqual(Object.keys(chat).sort(), ['200', '400', '401', '403', '404', '429', '503']);
    assert.ok(doc.paths[`${base}/embeddings`].post.responses['200'].content['application/json'].schema.properties.data);
    assert.ok(doc.paths[`${base}/rerank`].post.responses['200'].content['application/json'].schema.properties.results);
    assert.ok(doc.paths[`${base}/models`].get.responses['200'].content['application/json'].schema.properties.data);
  }
});

test('unknown routes answer the unified error body', async () => {
  const h = await shared;
  const r = await call(h.app, 'GET', '/openapi/v1/nope');
  assert.equal(r.status, 404);
  assert.deepEqual(Object.keys(r.body).sort(), ['code', 'message', 'metadata', 'reason']);
  assert.equal(r.body.code, 404);
});
