// The console's serverless endpoints in a real browser (issue 32, item 2, and item 1 for its
// forms): playwright-core driving Debian's chromium against a real Gantry process on the sim
// driver. As an Owner: the create form shows the ranges of /endpoint/limit and what the
// endpoint would cost per hour (price × GPUs × workers) before it exists; the form's checks (max
// below min; an environment variable's name over 511 characters, the API's rule, at its row) show at their fields and
// keep everything typed; the corrected create runs and the endpoint is listed. On its page the
// scaling form warns that saving replaces the workers; a refused save keeps what was typed with
// the refusal at its field and no "Saved"; the corrected save says so. Delete asks first (on
// the endpoint's page and in the list): dismissed, nothing is sent; accepted, the endpoint is
// terminating. A name with markup stays text. Every wait is on what the page shows.
// Screenshots: test-artifacts/console/serverless-*.png.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { api, chromiumSkip, launch, shot as shotAs, signIn, type Browser } from './helpers/browser.ts';
import { startServer } from './helpers/server.ts';
import { until } from './helpers/wait.ts';

const GPU = '/gpu-instance/openapi/v1';
const PRODUCT = 'prd_rtx4090_24g';
const MARKUP_NAME = '<img src=x onerror="window.__injected=1"><b>ep</b>';
const shot = (page: Page, name: string) => shotAs(page, `serverless-${name}`);

/** Dollars with two decimals, as the console shows an amount of 1/10000 USD. */
const usd = (units: bigint) => `$${((units + 50n) / 100n / 100n).toLocaleString('en-US')}.${String(((units + 50n) / 100n) % 100n).padStart(2, '0')}`;

/** The text of the elements that describe a control (aria-describedby). */
async function description(control: Locator): Promise<string> {
  return control.evaluate((el) => (el.getAttribute('aria-describedby') ?? '').split(/\s+/).filter(Boolean)
    .map((id) => document.getElementById(id)?.textContent ?? '').join(' '));
}

test('the console\'s serverless endpoints in chromium: create with limits and cost, refusals at their fields, the scaling warning, delete', { timeout: 300_000, skip: chromiumSkip }, async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'gantry-console-serverless-'));
  const server = await startServer({ GANTRY_DATA_DIR: dataDir, GANTRY_SIM_TIME_SCALE: '50', GANTRY_RECONCILE_INTERVAL_MS: '100', GANTRY_JOBS_POLL_MS: '50' }, { watchdogMs: 300_000 });
  let browser: Browser | undefined;
  let page: Page | undefined;
  try {
    const base = server.url;
    const { apiKey: ownerKey } = JSON.parse(readFileSync(join(dataDir, 'credentials.json'), 'utf8'));
    const limits = await api(base, ownerKey, 'GET', `${GPU}/endpoint/limit`);
    const product = (await api(base, ownerKey, 'GET', `${GPU}/products`)).data.find((p: any) => p.id === PRODUCT);
    assert.ok(product, PRODUCT);
    // one endpoint named with markup, created through the API, to delete from the list
    const markupId = (await api(base, ownerKey, 'POST', `${GPU}/endpoint/create`, { endpoint: {
      name: MARKUP_NAME, workerConfig: { minNum: 0, maxNum: 1 }, ports: [{ port: 8080 }], image: { image: 'hashicorp/http-echo' }, products: [{ id: PRODUCT }],
    } })).id as string;
    const deletes: string[] = [];

    browser = await launch();
    page = browser.page;
    const p = page;
    p.on('request', (r) => { if (r.url().includes('/endpoint/delete')) deletes.push(r.postData() ?? ''); });
    await signIn(p, base, ownerKey, false, browser.pageErrors);
    await p.getByRole('link', { name: 'Serverless' }).click();
    await p.getByRole('heading', { name: 'Serverless endpoints' }).waitFor();
    const list = p.getByRole('table', { name: 'Endpoints' });
    await list.getByRole('link', { name: MARKUP_NAME, exact: true }).waitFor();
    assert.equal(await list.locator('b, img').count(), 0, 'markup in a name stays text');

    // The form: the operator's ranges beside the fields, the cost before anything runs.
    await p.getByRole('button', { name: 'Create an endpoint' }).click();
    const form = p.getByRole('form', { name: 'Create an endpoint' });
    const minField = form.getByLabel('Min workers');
    await minField.waitFor();
    assert.match(await description(minField), new RegExp(`^${limits.minWorkerNum}–${limits.maxWorkerNum}`));
    assert.match(await description(form.getByLabel('GPUs per worker')), new RegExp(`^${limits.minGPUNum}–${limits.maxGPUNum}$`));
    await form.getByLabel('Endpoint name').fill('echo-typed');
    await form.getByLabel('Image').fill('hashicorp/http-echo');
    await form.getByLabel('HTTP port').fill('8080');
    await form.getByLabel('GPU product').selectOption(PRODUCT);
    await form.getByLabel('GPUs per worker').fill('2');
    await minField.fill('1');
    await form.getByLabel('Max workers').fill('3');
    await form.getByRole('button', { name: 'Add a variable' }).click();
    await form.getByRole('button', { name: 'Add a variable' }).click();
    await form.getByLabel('Variable 1 name').fill('GREETING');
    await form.getByLabel('Variable 1 value').fill('hello');
    await form.getByLabel('Variable 2 name').fill('MODE');
    await form.getByLabel('Variable 2 value').fill('test');
    const price = BigInt(product.price);
    const cost = p.getByRole('status', { name: 'Cost of this endpoint' });
    await cost.getByText(`${usd(price * 2n)} to ${usd(price * 2n * 3n)} per hour`).waitFor();
    assert.match(await cost.textContent() ?? '', new RegExp(`× 2 GPUs × 1–3 workers\\); \\${usd(price * 2n * 24n)} to \\${usd(price * 6n * 24n).replace('.', '\\.')} a day`));
    await shot(p, 'create-form');

    // The form's own check: max below min, at the max field, nothing sent.
    await form.getByLabel('Max workers').fill('0');
    await form.getByRole('button', { name: 'Create endpoint' }).click();
    const maxError = form.getByRole('alert').filter({ hasText: /must be in 1–|must be at least the minimum/ });
    await maxError.waitFor();
    assert.equal(await form.getByLabel('Max workers').getAttribute('aria-invalid'), 'true');
    await form.getByLabel('Max workers').fill('3');
    await maxError.waitFor({ state: 'detached' });

    // The API's rule, checked by the form: an environment variable's name over 511 characters, at its row; everything typed stays.
    const longName = 'K'.repeat(600);
    await form.getByLabel('Variable 1 name').fill(longName);
    await form.getByLabel('Health path').fill('/healthz');
    await form.getByRole('button', { name: 'Create endpoint' }).click();
    const refusal = form.getByRole('alert').filter({ hasText: /511/ });
    await refusal.waitFor();
    assert.equal(await form.getByLabel('Variable 1 name').getAttribute('aria-invalid'), 'true');
    assert.equal(await form.getByLabel('Variable 2 name').getAttribute('aria-invalid'), null, 'only the row at fault');
    assert.match(await description(form.getByLabel('Variable 1 name')), /511/);
    assert.equal(await form.getByLabel('Endpoint name').inputValue(), 'echo-typed');
    assert.equal(await form.getByLabel('Image').inputValue(), 'hashicorp/http-echo');
    assert.equal(await form.getByLabel('HTTP port').inputValue(), '8080');
    assert.equal(await form.getByLabel('GPUs per worker').inputValue(), '2');
    assert.equal(await minField.inputValue(), '1');
    assert.equal(await form.getByLabel('Max workers').inputValue(), '3');
    assert.equal(await form.getByLabel('Variable 1 name').inputValue(), longName);
    assert.equal(await form.getByLabel('Variable 2 value').inputValue(), 'test');
    assert.equal(await form.getByLabel('Health path').inputValue(), '/healthz');
    assert.equal(await p.getByRole('status').filter({ hasText: 'created' }).count(), 0, 'no success beside the refusal');
    await shot(p, 'create-refused');
    await form.getByLabel('Variable 1 name').fill('GREETING');
    await refusal.waitFor({ state: 'detached' });
    await form.getByRole('button', { name: 'Create endpoint' }).click();
    await p.getByRole('status').filter({ hasText: 'Endpoint echo-typed created' }).waitFor();
    const row = list.getByRole('row').filter({ hasText: 'echo-typed' });
    await row.waitFor();
    const id = (await api(base, ownerKey, 'GET', `${GPU}/endpoints?pageSize=100`)).endpoints.find((e: any) => e.name === 'echo-typed').id as string;
    const created = (await api(base, ownerKey, 'GET', `${GPU}/endpoint?id=${id}`)).endpoint;
    assert.deepEqual([created.workerConfig.gpuNum, created.workerConfig.minNum, created.workerConfig.maxNum, created.ports[0].port, created.products[0].id],
      [2, 1, 3, 8080, PRODUCT]);
    assert.deepEqual(created.envs, [{ key: 'GREETING', value: 'hello' }, { key: 'MODE', value: 'test' }]);
    assert.equal(created.healthy.path, '/healthz');

    // Its page: the scaling form warns that saving replaces the workers.
    await row.getByRole('link', { name: 'echo-typed' }).click();
    await p.getByRole('heading', { name: 'echo-typed' }).waitFor();
    const save = p.getByRole('button', { name: 'Save and replace workers' });
    await save.waitFor();
    assert.match(await description(save), /Saving replaces every worker/);
    const scaling = p.getByRole('form', { name: 'Edit scaling' });
    // a refused save keeps what was typed, the refusal at its field, no "Saved"
    await scaling.getByLabel('Min workers').fill('2');
    await scaling.getByLabel('Max workers').fill('1');
    await save.click();
    const atMax = scaling.getByRole('alert').filter({ hasText: 'must be at least minNum (2), got 1' });
    await atMax.waitFor();
    assert.equal(await scaling.getByLabel('Max workers').getAttribute('aria-invalid'), 'true');
    assert.equal(await scaling.getByLabel('Min workers').inputValue(), '2');
    assert.equal(await scaling.getByLabel('Max workers').inputValue(), '1');
    assert.equal(await p.getByText(/Saved/).count(), 0);
    await shot(p, 'scaling-refused');
    await scaling.getByLabel('Max workers').fill('4');
    await atMax.waitFor({ state: 'detached' });
    await save.click();
    await p.getByRole('status').filter({ hasText: 'Saved: new workers are starting.' }).waitFor();
    await until('the update is stored', async () => (await api(base, ownerKey, 'GET', `${GPU}/endpoint?id=${id}`)).endpoint.workerConfig.maxNum === 4);
    assert.equal(await scaling.getByLabel('Min workers').inputValue(), '2');
    await shot(p, 'detail');

    // Delete asks first: dismissed, nothing is sent; accepted, the endpoint is terminating.
    const asked: string[] = [];
    p.once('dialog', (d) => { asked.push(d.message()); void d.dismiss(); });
    await p.getByRole('button', { name: 'Delete endpoint' }).click();
    assert.deepEqual(asked, ['Delete echo-typed? Its workers stop and its URL stops answering.']);
    assert.deepEqual(deletes, []);
    p.once('dialog', (d) => void d.accept());
    await p.getByRole('button', { name: 'Delete endpoint' }).click();
    // terminating until its workers are gone, then not found: either is a deleted endpoint
    await p.getByText('terminating', { exact: true }).first().or(p.getByRole('alert').filter({ hasText: /not found/i })).waitFor();
    assert.deepEqual(deletes.map((b) => JSON.parse(b)), [{ name: id }]);
    assert.equal(await p.getByRole('button', { name: 'Delete endpoint' }).count(), 0);

    // From the list: the markup-named one.
    await p.getByRole('link', { name: '← Serverless' }).click();
    const markupRow = list.getByRole('row').filter({ has: p.getByRole('link', { name: MARKUP_NAME, exact: true }) });
    p.once('dialog', (d) => void d.accept());
    await markupRow.getByRole('button', { name: 'Delete' }).click();
    // deleting… while terminating; with no worker to stop it may be gone by the list's next read
    await markupRow.getByRole('button', { name: 'Delete' }).waitFor({ state: 'detached' });
    assert.deepEqual(deletes.map((b) => JSON.parse(b).name), [id, markupId]);
    await shot(p, 'list');
    assert.equal(await p.evaluate(() => (window as unknown as { __injected?: number }).__injected), undefined);
    assert.deepEqual(browser.pageErrors, []);
  } catch (e) {
    if (page) await shot(page, 'failure').catch(() => undefined);
    throw e;
  } finally {
    await browser?.close();
    await server.kill('SIGTERM');
    rmSync(dataDir, { recursive: true, force: true });
  }
});
