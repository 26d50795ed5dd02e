// The console's issue 45 items in a real browser: playwright-core driving Debian's chromium
// against a real Gantry process on the sim driver, one browser for the file. At desktop width:
// an instance created from the form (an official template chosen among the team's own,
// official and community ones, its start command, entrypoint and variables filled in and
// changed, a variable added and one removed, a network storage mounted) carries all of it as
// the API reads it back, as does an endpoint from its form (start command, variable, storage
// in its cluster); a storage in a cluster without the product cannot be chosen. The key
// page's snippets name the base URLs and the models the key may call (its policy applied: an
// allowed model, never a disallowed one), the fresh key in them only when it was just created.
// The endpoint page follows its workers without a reload: a worker the API adds comes up on
// the page; once the page is left, it is read no more (a page whose clock the test moves). At 390 px a wide table says that it scrolls and on which side. Every wait is on
// what the page shows. Screenshots: test-artifacts/console/forms-*.png.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { api, chromiumSkip, launch, shot as shotAs, signIn, type Browser } from './helpers/browser.ts';
import { startServer } from './helpers/server.ts';
import { until } from './helpers/wait.ts';

const GPU = '/gpu-instance/openapi/v1';
const SMALL = 'gantry/sim-chat-small';
const LARGE = 'gantry/sim-chat-large';
const shot = (page: Page, name: string) => shotAs(page, `forms-${name}`);

test('the console\'s create forms, key snippets, live endpoint page and scrolling tables (issue 45)', { timeout: 300_000, skip: chromiumSkip }, async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'gantry-console-forms-'));
  const server = await startServer({ GANTRY_DATA_DIR: dataDir, GANTRY_SIM_TIME_SCALE: '50', GANTRY_RECONCILE_INTERVAL_MS: '100', GANTRY_JOBS_POLL_MS: '50' }, { watchdogMs: 300_000 });
  let browser: Browser | undefined;
  let page: Page | undefined;
  try {
    const base = server.url;
    const { adminToken, apiKey: ownerKey } = JSON.parse(readFileSync(join(dataDir, 'credentials.json'), 'utf8'));
    // What the forms choose from: a storage where the product runs and one where it does not,
    // a community template (the operator's) and the team's own.
    const storageId = (await api(base, ownerKey, 'POST', `${GPU}/networkstorage/create`, { storageName: 'models', clusterId: 'cls_local', storageSize: 100 })).storageId as string;
    await api(base, adminToken, 'POST', '/admin/v1/gpu/clusters', { id: 'cls_empty', name: 'empty', supportNetworkStorage: true });
    await api(base, ownerKey, 'POST', `${GPU}/networkstorage/create`, { storageName: 'elsewhere', clusterId: 'cls_empty', storageSize: 10 });
    await api(base, adminToken, 'PUT', '/admin/v1/gpu/templates/tpl_community_comfy', { template: { name: 'ComfyUI (community)', type: 'instance', channel: 'community', image: 'comfy/ui:1', rootfsSize: 40 } });
    await api(base, ownerKey, 'POST', `${GPU}/template/create`, { template: { name: 'Our trainer', type: 'instance', channel: 'private', image: 'acme/train:3', rootfsSize: 30 } });

    browser = await launch();
    page = browser.page;
    const p = page;
    await signIn(p, base, ownerKey, false, browser.pageErrors);

    // 1. An instance from an official template, with its command, entrypoint, variables and a storage changed.
    await p.getByRole('link', { name: 'Instances' }).click();
    await p.getByRole('button', { name: 'Create an instance' }).click();
    const form = p.getByRole('form', { name: 'Create an instance' });
    const template = form.getByLabel('Template');
    await template.waitFor();
    const groups = await template.evaluate((el) => [...el.querySelectorAll('optgroup')].map((g) => [g.label, [...g.querySelectorAll('option')].map((o) => o.text).sort()]));
    assert.deepEqual(groups, [
      ['Your team\'s templates', ['Our trainer']],
      ['Official templates', ['PyTorch 2.5 (CUDA 12.4)', 'vLLM OpenAI-compatible server']],
      ['Community templates', ['ComfyUI (community)']],
    ]);
    await form.getByLabel('Instance name').fill('vllm-box');
    await template.selectOption({ label: 'vLLM OpenAI-compatible server' });
    assert.equal(await form.getByLabel('Start command').inputValue(), '--model $MODEL --host 0.0.0.0 --port 8000', 'the template\'s start command, to change');
    assert.equal(await form.getByLabel('Entrypoint').inputValue(), 'python3 -m vllm.entrypoints.openai.api_server');
    assert.equal(await form.getByLabel('Variable 1 name').inputValue(), 'MODEL');
    assert.equal(await form.getByLabel('Image', { exact: true }).inputValue(), 'vllm/vllm-openai:v0.6.4', 'the template\'s image, shown');
    await form.getByLabel('Start command').fill('--model $MODEL --port 8000');
    await form.getByLabel('Entrypoint').fill('python3 -m vllm.entrypoints.openai.api_server --trust-remote-code');
    await form.getByLabel('Variable 1 value').fill('Qwen/Qwen2.5-0.5B');
    await form.getByRole('button', { name: 'Add a variable' }).click();
    await form.getByLabel('Variable 2 name').fill('DROP_ME');
    await form.getByRole('button', { name: 'Add a variable' }).click();
    await form.getByLabel('Variable 3 name').fill('HF_HOME');
    await form.getByLabel('Variable 3 value').fill('/models/hf');
    await form.getByRole('button', { name: 'Remove variable 2' }).click();
    assert.equal(await form.getByLabel('Variable 2 name').inputValue(), 'HF_HOME', 'the rows after a removed one move up');
    const storage = form.getByLabel('Network storage');
    assert.equal(await storage.locator('option', { hasText: 'elsewhere' }).isDisabled(), true, 'a storage where the product does not run');
    await storage.selectOption(storageId);
    await form.getByLabel('Mount path').fill('/models');
    await shot(p, 'instance-form');
    await form.getByRole('button', { name: 'Create', exact: true }).click();
    await p.getByRole('status').filter({ hasText: 'Instance vllm-box created' }).waitFor();
    const id = (await api(base, ownerKey, 'GET', `${GPU}/gpu/instances?pageSize=10&pageNum=1&name=vllm-box`)).instances[0].id as string;
    const made = await api(base, ownerKey, 'GET', `${GPU}/gpu/instance?instanceId=${id}`);
    assert.deepEqual([made.imageUrl, made.command, made.entrypoint], ['vllm/vllm-openai:v0.6.4', '--model $MODEL --port 8000', 'python3 -m vllm.entrypoints.openai.api_server --trust-remote-code']);
    assert.deepEqual(made.envs, [{ key: 'MODEL', value: 'Qwen/Qwen2.5-0.5B' }, { key: 'HF_HOME', value: '/models/hf' }]);
    assert.deepEqual(made.volumeMounts.map((v: any) => [v.type, v.id, v.mountPath]), [['network', storageId, '/models']]);

    // 2. Key snippets: a key made on the page shows itself in them once; later its policy decides the models named.
    await p.getByRole('link', { name: 'Keys', exact: true }).click();
    await p.getByLabel('New key name').fill('snippets');
    await p.getByRole('button', { name: 'Create key' }).click();
    const secret = (await p.getByTestId('new-key').textContent()) ?? '';
    const fresh = p.getByRole('region', { name: 'Calling the API with snippets' });
    await fresh.getByTestId('key-models').waitFor();
    assert.match(await fresh.getByRole('list', { name: 'Base URLs' }).textContent() ?? '', new RegExp(`OpenAI-compatible base: ${base}/openai/v1.*Anthropic base: ${base}/anthropic.*${base}/openapi/v1`));
    assert.ok((await fresh.getByLabel('The key snippet').textContent())?.includes(secret), 'the fresh key, at its creation');
    await p.getByRole('button', { name: 'Done' }).click();
    const keyId = (await api(base, ownerKey, 'GET', '/openapi/v1/user/keys')).keys.find((k: any) => k.name === 'snippets').keyId as string;
    await api(base, ownerKey, 'PUT', `/openapi/v2/user/key/${keyId}/model-access-policy`, { mode: 'selected', allowedModels: [{ type: 'llm', id: SMALL }] });
    await p.getByRole('button', { name: 'How to call with snippets' }).click();
    const later = p.getByRole('region', { name: 'Calling the API with snippets' });
    await later.getByTestId('key-models').filter({ hasText: SMALL }).waitFor();
    const texts = await Promise.all(['The key', 'curl', 'Python (openai)', 'Node (openai)'].map((w) => later.getByLabel(`${w} snippet`).textContent()));
    assert.match(texts[1] ?? '', new RegExp(`^curl ${base}/openai/v1/chat/completions`));
    for (const t of texts.slice(1)) assert.ok(t?.includes(SMALL) && !t.includes(LARGE), `an allowed model, not a disallowed one: ${t}`);
    assert.ok(texts[2]?.includes(`base_url="${base}/openai/v1"`) && texts[3]?.includes(`baseURL: "${base}/openai/v1"`));
    assert.ok(!texts[0]?.includes(secret), 'the key is not shown again: a placeholder');
    assert.equal(await later.getByTestId('key-models').textContent(), SMALL);
    await shot(p, 'key-snippets');

    // 3. An endpoint from its form with a start command, a variable and the storage (scaled to zero);
    // its page follows its workers: a worker the API adds comes up, no reload.
    await p.getByRole('link', { name: 'Serverless' }).click();
    await p.getByRole('button', { name: 'Create an endpoint' }).click();
    const epForm = p.getByRole('form', { name: 'Create an endpoint' });
    await epForm.getByLabel('Endpoint name').fill('live-ep');
    await epForm.getByLabel('Image', { exact: true }).fill('hashicorp/http-echo');
    await epForm.getByLabel('Start command').fill('-listen=:8080 -text=hi');
    await epForm.getByLabel('HTTP port').fill('8080');
    await epForm.getByLabel('Min workers').fill('0');
    await epForm.getByLabel('Max workers').fill('1');
    await epForm.getByRole('button', { name: 'Add a variable' }).click();
    await epForm.getByLabel('Variable 1 name').fill('GREETING');
    await epForm.getByLabel('Variable 1 value').fill('hi');
    await epForm.getByLabel('Network storage').selectOption(storageId);
    await epForm.getByLabel('Mount path').fill('/data');
    await epForm.getByRole('button', { name: 'Create endpoint' }).click();
    await p.getByRole('status').filter({ hasText: 'Endpoint live-ep created' }).getByRole('link', { name: 'live-ep' }).click();
    await p.getByRole('heading', { name: 'live-ep' }).waitFor();
    const ep = (await api(base, ownerKey, 'GET', `${GPU}/endpoints?pageSize=10&pageNum=1`)).endpoints.find((x: any) => x.name === 'live-ep').id as string;
    const e = (await api(base, ownerKey, 'GET', `${GPU}/endpoint?id=${ep}`)).endpoint;
    assert.deepEqual([e.image.command, e.envs, e.clusterID, e.volumeMounts.map((v: any) => [v.type, v.id, v.mountPath])],
      ['-listen=:8080 -text=hi', [{ key: 'GREETING', value: 'hi' }], 'cls_local', [['network', storageId, '/data']]]);
    await p.getByText('No workers (scaled to zero).').waitFor();
    await p.evaluate(() => { (window as unknown as { sameDocument: boolean }).sameDocument = true; });
    await api(base, ownerKey, 'POST', `${GPU}/endpoint/update`, {
      id: ep, ports: [{ port: 8080 }], image: e.image, policy: { type: e.policy.type, value: Number(e.policy.value) }, products: e.products,
      clusterID: e.clusterID, volumeMounts: e.volumeMounts, envs: e.envs,
      workerConfig: { ...e.workerConfig, minNum: 1, maxNum: 1, freeTimeout: Number(e.workerConfig.freeTimeout), maxConcurrent: Number(e.workerConfig.maxConcurrent) },
    });
    await p.getByRole('table', { name: 'Workers' }).getByRole('row').filter({ hasText: 'running' }).waitFor({ timeout: 60_000 });
    await p.getByTestId('endpoint-state').getByText('serving').waitFor();
    assert.equal(await p.evaluate(() => (window as unknown as { sameDocument?: boolean }).sameDocument), true, 'followed without a reload');
    await p.getByText(/^updated \d\d:\d\d:\d\d UTC$/).waitFor();

    // Leaving the page ends its following: on a second page whose clock the test moves, the
    // endpoint is read again as time passes while the page is shown, and never once it is left.
    const timed = await browser.context.newPage();
    await timed.clock.install();
    let reads = 0;
    timed.on('request', (r) => { if (r.url().includes(`/endpoint?id=${ep}`)) reads++; });
    /** Moves the page's clock on until `shown` is on the page (its renders and effects run on that clock). */
    const tick = (what: string, shown: () => Promise<boolean>) => until(what, async () => { await timed.clock.runFor(100); return shown(); });
    await timed.goto(`${base}/console/#/serverless/${ep}`);
    await tick('the endpoint page', () => timed.getByRole('heading', { name: 'live-ep' }).isVisible());
    const shownReads = reads;
    await tick('read again while shown', async () => reads > shownReads);
    await timed.getByRole('link', { name: '← Serverless' }).click();
    await tick('the list', () => timed.getByRole('table', { name: 'Endpoints' }).isVisible());
    const left = reads;
    await timed.clock.runFor(120_000);
    await timed.evaluate(() => fetch('/console/session').then((r) => r.status)); // a round trip after the two minutes
    assert.equal(reads, left, 'no read of the endpoint once its page is left');
    await timed.close();

    // 4. At 390 px the instances table is wider than the screen and says so, then which side hides more.
    await p.setViewportSize({ width: 390, height: 800 });
    await p.goto(`${base}/console/#/instances`);
    const hint = p.getByText('Instances: scroll sideways for more columns');
    await hint.waitFor();
    assert.equal(await hint.textContent(), 'Instances: scroll sideways for more columns →');
    await p.locator('.table-wrap').first().evaluate((el) => el.scrollTo({ left: el.scrollWidth }));
    await p.getByText('← Instances: scroll sideways for more columns', { exact: true }).waitFor();
    assert.equal(await p.locator('.table-box').first().getAttribute('data-more'), 'left');
    await shot(p, 'phone-table');
    await p.setViewportSize({ width: 1600, height: 900 });
    await hint.waitFor({ state: 'detached' });
    await until('no other table scrolls at 1600 px', async () => (await p.locator('.table-box[data-more]').count()) === 0);
    assert.deepEqual(browser.pageErrors, []);
  } catch (err) {
    if (page) await shot(page, 'failure').catch(() => undefined);
    throw err;
  } finally {
    await browser?.close();
    await server.kill('SIGTERM');
    rmSync(dataDir, { recursive: true, force: true });
  }
});
