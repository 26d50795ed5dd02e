// A signed blob link is a bearer credential until it expires: its signature never reaches
// the log (the request lines Fastify writes, a refused link's too), while the rest of the
// URL stays readable there.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { buildTestApp } from '../../../../test/helpers/app.ts';

test('the access log carries a signed link without its signature', async () => {
  const lines: string[] = [];
  const logStream = new Writable({
    write(chunk, _enc, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  const t = await buildTestApp({ logStream });
  try {
    const key = 'test/log-redaction.bin';
    await t.services.blobs.store.put(key, (async function* () { yield Buffer.from('hello'); })());
    const url = new URL(t.services.blobs.links.url(key, 600));
    const signature = url.searchParams.get('signature')!;
    assert.ok(signature.length >= 40);
    const ok = await t.app.inject({ method: 'GET', url: url.pathname + url.search });
    assert.equal(ok.statusCode, 200, ok.body);
    assert.equal(ok.body, 'hello');
    const expired = url.search.replace(/expires=\d+/, 'expires=1');
    assert.equal((await t.app.inject({ method: 'GET', url: url.pathname + expired })).statusCode, 403);

    const requests = lines.map((l) => JSON.parse(l)).filter((l) => typeof l.req?.url === 'string' && l.req.url.startsWith('/blobs/'));
    assert.equal(requests.length, 2, lines.join('\n'));
    for (const l of requests) assert.match(l.req.url, /^\/blobs\/test\/log-redaction\.bin\?expires=\d+&signature=\[redacted\]$/);
    assert.ok(!lines.some((l) => l.includes(signature)), 'the signature is in no line');
  } finally {
    await t.close();
  }
});
