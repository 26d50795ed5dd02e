import { test } from 'node:test';
import assert from 'node:assert/strict';
import { registerHooks } from 'node:module';
import Fastify from 'fastify';

// Every module this process resolves from here on: the docs plugin must not be among them
// until the page is asked for.
const resolved = new Set<string>();
registerHooks({
  resolve(specifier, context, next) {
    resolved.add(specifier);
    return next(specifier, context);
  },
});
const PLUGIN = '@scalar/fastify-api-reference';

test('/docs loads its plugin on the first request and answers exactly as the plugin registered at start', async (t) => {
  const { buildTestApp } = await import('../../test/helpers/app.ts');
  const h = await buildTestApp();
  t.after(() => h.close());
  assert.ok(!resolved.has(PLUGIN), 'the docs plugin is loaded at start');
  assert.deepEqual(h.routes.filter((r) => r.url.startsWith('/docs')).map((r) => `${r.method} ${r.url}`), ['GET /docs/', 'GET /docs/js/scalar.js']);

  // the plugin itself, registered the way the app registered it before it was loaded lazily
  const { default: scalar } = await import(PLUGIN);
  const eager = Fastify({ routerOptions: { ignoreTrailingSlash: true } });
  t.after(() => eager.close());
  await eager.register(scalar, { routePrefix: '/docs', configuration: { url: '/openapi.json' } } as never);

  // the first two requests arrive together: one load serves both
  const urls = ['/docs/', '/docs/js/scalar.js', '/docs', '/docs/?x=1'];
  const ours = await Promise.all(urls.map((url) => h.app.inject({ method: 'GET', url, headers: { host: 'gantry.test' } })));
  assert.ok(resolved.has(PLUGIN));
  for (const [i, url] of urls.entries()) {
    const theirs = await eager.inject({ method: 'GET', url, headers: { host: 'gantry.test' } });
    const a = ours[i]!;
    assert.equal(a.statusCode, theirs.statusCode, url);
    for (const h of ['content-type', 'content-length', 'location']) assert.equal(a.headers[h], theirs.headers[h], `${url} ${h}`);
    assert.ok(a.rawPayload.equals(theirs.rawPayload), `${url}: body differs`);
  }
  assert.equal(ours[0]!.statusCode, 200);
  assert.match(ours[0]!.body, /<script[^>]+js\/scalar\.js/);
  assert.ok(ours[1]!.rawPayload.length > 1_000_000);
  assert.equal(ours[2]!.statusCode, 301);
});
