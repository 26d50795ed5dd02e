import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp } from '../test/helpers/app.ts';
import { call } from '../test/helpers/http.ts';

test('health, metrics, OpenAPI document and docs page are served', async (t) => {
  const h = await buildTestApp();
  t.after(() => h.close());
  assert.equal((await call(h.app, 'GET', '/healthz')).body.status, 'ok');
  const metrics = await call(h.app, 'GET', '/metrics');
  assert.equal(metrics.status, 200);
  assert.match(String(metrics.body), /gantry_http_requests_total/);
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

test('unknown routes answer the unified error body', async (t) => {
  const h = await buildTestApp();
  t.after(() => h.close());
  const r = await call(h.app, 'GET', '/openapi/v1/nope');
  assert.equal(r.status, 404);
  assert.deepEqual(Object.keys(r.body).sort(), ['code', 'message', 'metadata', 'reason']);
  assert.equal(r.body.code, 404);
});
