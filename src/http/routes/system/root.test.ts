// GET /: the ways in, as a page for a browser and as JSON for anything else; both lead somewhere.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp } from '../../../../test/helpers/app.ts';

test('GET / names the console and /docs: a page for a browser, JSON otherwise, and both answer', async () => {
  const t = await buildTestApp();
  try {
    const json = await t.app.inject({ method: 'GET', url: '/' });
    assert.equal(json.statusCode, 200);
    assert.match(String(json.headers['content-type']), /^application\/json/);
    const ways = JSON.parse(json.body);
    assert.equal(ways.console, '/console');
    assert.equal(ways.docs, '/docs/');
    assert.equal(ways.openapi, '/openapi.json');

    const browser = await t.app.inject({ method: 'GET', url: '/', headers: { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' } });
    assert.equal(browser.statusCode, 200);
    assert.match(String(browser.headers['content-type']), /^text\/html/);
    assert.match(browser.body, /<a href="\/console">The web console<\/a>/);
    assert.match(browser.body, /<a href="\/docs\/">The API reference<\/a>/);
    assert.match(String(browser.headers.vary), /accept/);

    // where they lead answers
    for (const url of [ways.console, ways.docs, ways.openapi, ways.health]) {
      const r = await t.app.inject({ method: 'GET', url });
      assert.equal(r.statusCode, 200, url);
    }
  } finally {
    await t.close();
  }
});
