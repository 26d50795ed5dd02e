// The operator's Models view (issue 45), in a real browser: playwright-core driving Debian's
// chromium against a real Gantry process and a local OpenAI-compatible upstream. The operator
// adds a model pointing at the upstream and sees the save's check pass (reachable, key
// accepted, model listed); an edit naming a model the upstream does not list says what failed;
// sets the upstream key in a password field (emptied, never shown again: the row says "set
// <date>") and the upstream is then called with it; once the upstream fails the calls a tenant
// makes through the API, the row shows it failing with its last error; retiring asks first and
// takes the model out of the list. At a phone's width the view does not scroll sideways.
// Screenshots: test-artifacts/console/operator-models-*.png.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { api, chromiumSkip, launch, shot as shotAs, shows, signIn, type Browser } from './helpers/browser.ts';
import { startServer } from './helpers/server.ts';
import { until } from './helpers/wait.ts';

const shot = (page: Page, name: string) => shotAs(page, `operator-models-${name}`);
const KEY = 'sk-upstream-test-0123456789abcdef';

/** An OpenAI-compatible server: lists `real-name`, wants `key` once it is set, fails chat calls with `chatFails`. */
async function upstream() {
  const u = { url: '', key: undefined as string | undefined, chatFails: 0, auths: [] as Array<string | undefined>, close: () => {} };
  const server = createServer(async (req, res) => {
    let raw = '';
    for await (const c of req) raw += c;
    const json = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    u.auths.push(req.headers.authorization);
    if (u.key !== undefined && req.headers.authorization !== `Bearer ${u.key}`) return json(401, { error: { message: 'Incorrect API key provided' } });
    if (req.method === 'GET' && req.url === '/v1/models') return json(200, { object: 'list', data: [{ id: 'real-name', object: 'model', owned_by: 'x', created: 1 }] });
    if (u.chatFails) return json(u.chatFails, { error: { message: 'the server is on fire' } });
    const body = JSON.parse(raw);
    json(200, {
      id: 'c1', object: 'chat.completion', created: 1, model: body.model,
      choices: [{ index: 0, message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 },
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  u.url = `http://127.0.0.1:${(server.address() as { port: number }).port}/v1`;
  u.close = () => { server.closeAllConnections(); server.close(); };
  return u;
}

test('the operator\'s Models view in chromium: add with the upstream check, a failed check said, the upstream key set write-only, a failing upstream shown, retire; a phone\'s width', { timeout: 300_000, skip: chromiumSkip }, async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'gantry-console-opmodels-'));
  const server = await startServer({ GANTRY_DATA_DIR: dataDir }, { watchdogMs: 300_000 });
  const up = await upstream();
  let browser: Browser | undefined;
  try {
    const base = server.url;
    const { adminToken, apiKey: ownerKey } = JSON.parse(readFileSync(join(dataDir, 'credentials.json'), 'utf8'));
    const team = (await api(base, adminToken, 'GET', '/admin/v1/teams')).teams[0];
    await api(base, adminToken, 'POST', `/admin/v1/teams/${team.userId}/topups`, { amount: '1000000', idempotencyKey: 'opmodels-1' });

    browser = await launch();
    const p = browser.page;
    await signIn(p, base, adminToken, true, browser.pageErrors);
    await p.getByRole('navigation', { name: 'Operator views' }).getByRole('link', { name: 'Models', exact: true }).click();
    await p.getByRole('heading', { name: 'Models', exact: true }).waitFor();
    const table = p.getByRole('table', { name: 'Model catalogue' });
    await table.waitFor();

    // Add a model on the local upstream: the check passes.
    await p.getByRole('button', { name: 'Add a model', exact: true }).click();
    const form = p.getByRole('form', { name: 'Add a model' });
    await form.getByLabel('Model id', { exact: true }).fill('acme/remote');
    await form.getByLabel('Title', { exact: true }).fill('Remote model');
    await form.getByLabel('Input price per 1M tokens (USD)', { exact: true }).fill('0.10');
    await form.getByLabel('Output price per 1M tokens (USD)', { exact: true }).fill('0.20');
    await form.getByLabel('Upstream URL (empty: the simulator)', { exact: true }).fill(up.url);
    await form.getByLabel('Upstream model name (empty: the model id)', { exact: true }).fill('real-name');
    await form.getByRole('button', { name: 'Save model' }).click();
    const passed = form.getByRole('status').filter({ hasText: 'Saved acme/remote: the upstream check passed.' });
    await passed.waitFor();
    assert.match((await passed.textContent()) ?? '', new RegExp(`${up.url.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: reachable yes, key accepted yes, model listed yes`));
    const row = table.getByRole('row').filter({ hasText: 'acme/remote' });
    await row.waitFor();
    assert.match((await row.textContent()) ?? '', /Remote model/);
    assert.match((await row.textContent()) ?? '', /not set/);
    assert.match((await row.textContent()) ?? '', /no call yet/);
    await shot(p, 'added');
    await form.getByRole('button', { name: 'Close' }).click();

    // An edit naming a model the upstream does not list: saved (warn), and the form says what failed.
    await row.getByRole('button', { name: 'Edit acme/remote', exact: true }).click();
    const edit = p.getByRole('form', { name: 'Edit acme/remote' });
    assert.equal(await edit.getByLabel('Input price per 1M tokens (USD)', { exact: true }).inputValue(), '0.10');
    await edit.getByLabel('Upstream model name (empty: the model id)', { exact: true }).fill('not-there');
    await edit.getByRole('button', { name: 'Save model' }).click();
    const failed = edit.getByRole('status').filter({ hasText: 'Saved acme/remote: the upstream check failed.' });
    await failed.waitFor();
    assert.match((await failed.textContent()) ?? '', /reachable yes, key accepted yes, model listed no/);
    await shot(p, 'check-failed');
    await edit.getByLabel('Upstream model name (empty: the model id)', { exact: true }).fill('real-name');
    await edit.getByRole('button', { name: 'Save model' }).click();
    await edit.getByRole('status').filter({ hasText: 'the upstream check passed' }).waitFor();
    await edit.getByRole('button', { name: 'Close' }).click();

    // Set the upstream key: a password field, emptied once set; the row says when, never the key.
    await row.getByRole('button', { name: 'Upstream key of acme/remote', exact: true }).click();
    const keyForm = p.getByRole('form', { name: 'Upstream key of acme/remote' });
    const keyField = keyForm.getByLabel('Upstream key', { exact: true });
    assert.equal(await keyField.getAttribute('type'), 'password');
    await keyField.fill(KEY);
    await keyForm.getByRole('button', { name: 'Set key', exact: true }).click();
    await keyForm.getByRole('status').filter({ hasText: 'Upstream key of acme/remote set. It is not shown again.' }).waitFor();
    assert.equal(await keyField.inputValue(), '');
    await row.filter({ hasText: /set \d{4}-\d\d-\d\d \d\d:\d\d UTC/ }).waitFor();
    await keyForm.getByRole('button', { name: 'Rotate key', exact: true }).waitFor();
    assert.ok(!((await p.locator('body').textContent()) ?? '').includes(KEY), 'the key is not on the page');
    await shot(p, 'key-set');
    await keyForm.getByRole('button', { name: 'Close', exact: true }).click();
    await keyForm.waitFor({ state: 'detached' });

    // The upstream now wants the key, and a tenant's call brings it; then it fails, and the row says so.
    up.key = KEY;
    const call = () => fetch(`${base}/openai/v1/chat/completions`, {
      method: 'POST', headers: { authorization: `Bearer ${ownerKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'acme/remote', messages: [{ role: 'user', content: 'hello' }], max_tokens: 5 }),
    });
    const ok = await call();
    assert.equal(ok.status, 200, await ok.text());
    assert.equal(up.auths.at(-1), `Bearer ${KEY}`);
    up.chatFails = 502;
    for (let i = 0; i < 3; i++) {
      const r = await call();
      assert.equal(r.status, 503, await r.text());
    }
    await until('the API says the upstream is failing', async () => (await api(base, adminToken, 'GET', '/admin/v1/models/acme%2Fremote/health')).state === 'failing');
    await p.getByRole('button', { name: 'Refresh', exact: true }).click();
    await row.filter({ hasText: 'failing' }).filter({ hasText: 'upstream answered 502' }).waitFor();
    assert.match((await row.textContent()) ?? '', /failed calls in a row/);
    await shot(p, 'failing');

    // At a phone's width: the view does not scroll sideways (the table scrolls in its own box).
    await p.setViewportSize({ width: 366, height: 740 });
    await row.waitFor();
    assert.ok(await p.evaluate(() => document.documentElement.scrollWidth <= innerWidth), 'no sideways scroll at 366 px');
    await shot(p, 'phone');
    await p.setViewportSize({ width: 1200, height: 900 });

    // Retire: asked first; Cancel keeps it, Retire model takes it out of the list.
    await row.getByRole('button', { name: 'Retire acme/remote', exact: true }).click();
    await p.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
    await row.getByRole('button', { name: 'Retire acme/remote', exact: true }).click();
    await p.getByRole('dialog').getByRole('button', { name: 'Retire model' }).click();
    await row.waitFor({ state: 'detached' });
    const all = (await api(base, adminToken, 'GET', '/admin/v1/models?retired=true')).models;
    assert.equal(all.find((m: { id: string }) => m.id === 'acme/remote')?.status, 'retired');
    await p.getByLabel('Show retired models', { exact: true }).check();
    await row.filter({ hasText: 'retired' }).waitFor();
    await shows(p, 'retired row', row, browser.pageErrors);
    assert.deepEqual(browser.pageErrors, []);
  } finally {
    await browser?.close();
    up.close();
    await server.kill('SIGTERM');
    rmSync(dataDir, { recursive: true, force: true });
  }
});
