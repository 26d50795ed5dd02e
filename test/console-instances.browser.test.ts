// The console's instances in a real browser (issue 32, items 5 and 1 for the instance form):
// playwright-core driving Debian's chromium against a real Gantry process on the sim driver
// (lifecycles 50 times shorter; an image naming `sim-fail-pull` fails its pull). As an Owner:
// the status filter offers every status; removed instances are hidden until "Show removed" is
// ticked; a failed instance reads red with its reason, a stopped one grey; a create the API
// refuses (a disk over the product's maxRootFS) keeps everything typed and shows the refusal at
// the disk field, then the corrected create runs; on the instance's page its ports are links,
// Stop then Start then Restart change the status shown, the metrics say the sim measures
// nothing (and a chart is drawn from the answer of a driver that does), and Delete asks first.
// Names are shown as text. A Basic member sees the instance's page without its controls.
// Every wait is on what the page shows (or the API answers), never a pause. Screenshots go to
// test-artifacts/console/instances-*.png. Skipped (with a message) only where no chromium exists.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { api, chromiumSkip, launch, shot as shotAs, signIn, type Browser } from './helpers/browser.ts';
import { startServer } from './helpers/server.ts';
import { until } from './helpers/wait.ts';
import { INSTANCE_STATUSES } from '../src/domain/compute/states.ts';

const GPU = '/gpu-instance/openapi/v1';
const PRODUCT = 'prd_rtx4090_24g';
/** A name that would be markup if it were injected as HTML. */
const MARKUP_NAME = '<img src=x onerror="window.__injected=1"><b>bold</b>';

const shot = (page: Page, name: string) => shotAs(page, `instances-${name}`);

/** The colour a CSS variable of the page's theme resolves to, as getComputedStyle writes colours. */
async function themeColour(page: Page, variable: string): Promise<string> {
  return page.evaluate((v) => {
    const probe = document.createElement('span');
    probe.style.color = `var(${v})`;
    document.body.append(probe);
    const c = getComputedStyle(probe).color;
    probe.remove();
    return c;
  }, variable);
}

const colourOf = (l: Locator) => l.evaluate((el) => getComputedStyle(el).color);

/** The text of the elements that describe a control (aria-describedby). */
async function description(control: Locator): Promise<string> {
  return control.evaluate((el) => (el.getAttribute('aria-describedby') ?? '').split(/\s+/).filter(Boolean)
    .map((id) => document.getElementById(id)?.textContent ?? '').join(' '));
}

test('the console\'s instances in chromium: every status to filter, removed hidden, failed red, a refused create keeps what was typed, Stop/Start/Restart/Delete, ports as links, metrics', { timeout: 300_000, skip: chromiumSkip }, async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'gantry-console-instances-'));
  const server = await startServer({ GANTRY_DATA_DIR: dataDir, GANTRY_SIM_TIME_SCALE: '50', GANTRY_RECONCILE_INTERVAL_MS: '100', GANTRY_JOBS_POLL_MS: '50' }, { watchdogMs: 300_000 });
  let browser: Browser | undefined;
  let page: Page | undefined;
  try {
    const base = server.url;
    const { adminToken, apiKey: ownerKey } = JSON.parse(readFileSync(join(dataDir, 'credentials.json'), 'utf8'));
    const product = (await api(base, ownerKey, 'GET', `${GPU}/products`)).data.find((p: any) => p.id === PRODUCT);
    assert.ok(product, `the seeded product ${PRODUCT}`);
    const statusOf = async (id: string) => (await api(base, ownerKey, 'GET', `${GPU}/gpu/instance?instanceId=${id}`)).status as string;
    const create = async (name: string, imageUrl: string) => (await api(base, ownerKey, 'POST', `${GPU}/gpu/instance/create`, {
      name, productId: PRODUCT, gpuNum: 1, rootfsSize: product.minRootFS, imageUrl, kind: 'gpu',
    })).id as string;
    // Fixtures through the public API: one whose pull fails, one removed, one named with markup, a Basic member.
    const failedId = await create('pull-fails', 'registry.invalid/acme/sim-fail-pull:1');
    const goneId = await create('gone-box', 'nginx:latest');
    await api(base, ownerKey, 'POST', `${GPU}/gpu/instance/delete`, { instanceId: goneId });
    await create(MARKUP_NAME, 'nginx:latest');
    await until('the pull fails and the instance exits', async () => (await statusOf(failedId)) === 'exited', { everyMs: 50 });
    await until('the deleted instance is removed', async () => (await statusOf(goneId)) === 'removed', { everyMs: 50 });
    const team = (await api(base, adminToken, 'GET', '/admin/v1/teams')).teams[0];
    const basic = await api(base, adminToken, 'POST', `/admin/v1/teams/${team.userId}/members`, { email: 'basic@example.com', role: 'Basic' });
    const basicKey = (await api(base, adminToken, 'POST', `/admin/v1/members/${basic.memberId}/keys`, { name: 'basic' })).apiKey;

    browser = await launch();
    page = browser.page;
    const p = page;
    const { pageErrors } = browser;
    const deletes: string[] = [];
    p.on('request', (r) => { if (r.url().includes('/gpu/instance/delete')) deletes.push(r.url()); });
    await signIn(p, base, ownerKey);
    const [muted, bad] = [await themeColour(p, '--muted'), await themeColour(p, '--bad')];
    assert.notEqual(muted, bad);

    // The list: every status to filter by, removed ones hidden until asked for, the failed one red with its reason.
    await p.getByRole('link', { name: 'Instances' }).click();
    await p.getByRole('heading', { name: 'Instances', exact: true }).waitFor();
    const list = p.getByRole('table', { name: 'Instances' });
    const failedRow = list.getByRole('row').filter({ hasText: 'pull-fails' });
    await failedRow.waitFor();
    const statusFilter = p.getByRole('combobox', { name: 'Status' });
    assert.deepEqual(await statusFilter.locator('option').evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value)), ['', ...INSTANCE_STATUSES]);
    const goneRow = list.getByRole('row').filter({ hasText: 'gone-box' });
    assert.equal(await goneRow.count(), 0, 'a removed instance is hidden by default');
    await p.getByText('1 removed instance on this page hidden').waitFor();
    const failedWord = failedRow.getByText('failed', { exact: true });
    await failedWord.waitFor();
    assert.equal(await colourOf(failedWord), bad, 'a failed instance reads red');
    const reason = failedRow.getByText(/image pull failed/);
    await reason.waitFor();
    assert.equal(await colourOf(reason), bad, 'its reason too');
    // markup in a name is shown as text
    await list.getByRole('link', { name: MARKUP_NAME, exact: true }).waitFor();
    assert.equal(await list.locator('b, img').count(), 0);
    await p.getByLabel('Show removed').check();
    await goneRow.getByText('removed', { exact: true }).waitFor();
    assert.equal(await colourOf(goneRow.getByText('removed', { exact: true })), muted, 'a removed instance reads grey');
    await p.getByLabel('Show removed').uncheck();
    await p.getByText('1 removed instance on this page hidden').waitFor();
    assert.equal(await goneRow.count(), 0);
    // filtering by a status asks the API for it
    await statusFilter.selectOption('exited');
    await list.getByRole('row').filter({ hasText: MARKUP_NAME }).waitFor({ state: 'detached' });
    assert.equal(await failedRow.count(), 1);
    await statusFilter.selectOption('');
    await list.getByRole('row').filter({ hasText: MARKUP_NAME }).waitFor();
    await shot(p, 'list');

    // A create the API refuses (the disk over the product's maxRootFS) keeps what was typed and shows why at the disk.
    await p.getByRole('button', { name: 'Create an instance' }).click();
    const form = p.getByRole('form', { name: 'Create an instance' });
    const disk = form.getByLabel('Root disk (GB)');
    await disk.waitFor();
    await form.getByLabel('Instance name').fill('typed-box');
    await form.getByLabel('Image', { exact: true }).fill('custom/image:v2');
    const tooBig = String(product.maxRootFS + 1);
    await disk.fill(tooBig);
    await form.getByLabel('Ports').fill('80/http,3306/tcp');
    await form.getByLabel('GPUs').fill('2');
    await form.getByRole('button', { name: 'Create', exact: true }).click();
    const refusal = form.getByRole('alert').filter({ hasText: `must be an integer in ${product.minRootFS}-${product.maxRootFS} GB` });
    await refusal.waitFor();
    assert.equal(await disk.getAttribute('aria-invalid'), 'true');
    assert.match(await description(disk), new RegExp(`must be an integer in ${product.minRootFS}-${product.maxRootFS} GB`), 'the refusal describes the disk field');
    assert.equal(await form.getByLabel('Image', { exact: true }).getAttribute('aria-invalid'), null, 'only the refused field is marked');
    assert.equal(await form.getByLabel('Instance name').inputValue(), 'typed-box');
    assert.equal(await form.getByLabel('Image', { exact: true }).inputValue(), 'custom/image:v2');
    assert.equal(await disk.inputValue(), tooBig);
    assert.equal(await form.getByLabel('Ports').inputValue(), '80/http,3306/tcp');
    assert.equal(await form.getByLabel('GPUs').inputValue(), '2');
    assert.equal(await p.getByText('Saved.').count(), 0);
    assert.equal(await p.getByRole('status').filter({ hasText: 'created' }).count(), 0, 'no success beside the refusal');
    await shot(p, 'create-refused');
    await disk.fill('70');
    await refusal.waitFor({ state: 'detached' }); // corrected: the refusal goes
    await form.getByRole('button', { name: 'Create', exact: true }).click();
    await p.getByRole('status').filter({ hasText: 'Instance typed-box created' }).waitFor();
    const row = list.getByRole('row').filter({ hasText: 'typed-box' });
    await row.getByText('running', { exact: true }).waitFor({ timeout: 60_000 });

    // The instance's page: what it runs, its ports as links, no measurements on the sim driver.
    await row.getByRole('link', { name: 'typed-box' }).click();
    await p.getByRole('heading', { name: 'typed-box' }).waitFor();
    const id = (await api(base, ownerKey, 'GET', `${GPU}/gpu/instances?name=typed-box`)).instances[0].id as string;
    const status = p.getByTestId('instance-status');
    await status.getByText('running', { exact: true }).waitFor();
    const details = p.getByRole('table', { name: 'Instance details' });
    await details.getByRole('cell', { name: 'custom/image:v2', exact: true }).waitFor();
    await details.getByRole('cell', { name: '70 GB', exact: true }).waitFor();
    const ports = (await api(base, ownerKey, 'GET', `${GPU}/gpu/instance?instanceId=${id}`)).portMappings as { port: number; type: string; endpoint: string }[];
    const http = ports.find((x) => x.port === 80)!;
    const tcp = ports.find((x) => x.port === 3306)!;
    assert.ok(http.endpoint && tcp.endpoint, JSON.stringify(ports));
    const portList = p.getByRole('list', { name: 'Ports' });
    const link = portList.getByRole('link', { name: `http://${http.endpoint}` });
    assert.equal(await link.getAttribute('href'), `http://${http.endpoint}`);
    assert.equal(await link.getAttribute('target'), '_blank');
    await portList.getByText(tcp.endpoint, { exact: true }).waitFor(); // tcp: an address to connect to, not a web link
    // the http port's Open link goes through Gantry's proxy, signed in by its one-time ticket
    const open = portList.getByTestId('open-port-80');
    assert.match(String(await open.getAttribute('href')), new RegExp(`/ports/${id}/80/\\?gantry_ticket=p1\\.`));
    assert.equal(await portList.getByRole('link').count(), 2);
    await p.getByTestId('no-metrics').getByText(/No measurements in this range/).waitFor();

    // Stop, then Start, then Restart: the status shown follows.
    const log = p.getByLabel('Live log');
    await log.getByText(/→ running/).waitFor();
    await p.getByRole('button', { name: 'Stop', exact: true }).click();
    const exited = status.getByText('exited', { exact: true });
    await exited.waitFor();
    assert.equal(await colourOf(exited), muted, 'a stopped instance reads grey');
    await p.getByRole('button', { name: 'Start', exact: true }).waitFor();
    assert.equal(await p.getByRole('button', { name: 'Stop', exact: true }).count(), 0);
    await shot(p, 'stopped');
    await p.getByRole('button', { name: 'Start', exact: true }).click();
    await status.getByText('running', { exact: true }).waitFor();
    await p.getByRole('button', { name: 'Restart', exact: true }).waitFor();
    const runs = () => p.locator('pre.log').evaluate((el) => (el.textContent ?? '').split('\n').filter((l) => /→ running/.test(l)).length);
    const before = await runs();
    await p.getByRole('button', { name: 'Restart', exact: true }).click();
    await log.getByText(/running → toRestart/).waitFor();
    await p.waitForFunction((n) => (document.querySelector('pre.log')?.textContent ?? '').split('\n').filter((l) => /→ running/.test(l)).length > n, before);
    await status.getByText('running', { exact: true }).waitFor();
    await p.getByRole('button', { name: 'Restart', exact: true }).waitFor(); // offered again: the page read the instance running

    // A driver that measures: its answer drawn (the sim has none; the docker driver's, in the API's shape).
    const now = Math.floor(Date.now() / 1000);
    const series = (v: number) => [0, 1, 2, 3].map((k) => ({ timestamp: String(now - 60 + k * 15), value: v + k }));
    const metricsUrl = (u: URL) => u.pathname === '/openapi/v1/metrics/gpu/instance';
    await p.route(metricsUrl, (r) => r.fulfill({ json: {
      cpuUtilization: series(10), memUtilization: series(20), rootDiskUtilization: series(5),
      gpuUtilization: { avg: series(70), gpuIds: [{ gpuId: 'GPU-aaaa', items: series(70) }] }, gpuMemUtilization: { avg: series(40), gpuIds: [{ gpuId: 'GPU-aaaa', items: series(40) }] },
    } }));
    await p.getByRole('button', { name: 'Refresh metrics' }).click();
    await p.locator('.chart[data-drawn="true"] canvas').waitFor();
    await p.getByLabel('Latest measurements').getByText('GPU utilization 73%', { exact: false }).waitFor();
    await p.unroute(metricsUrl);
    await shot(p, 'detail');

    // Delete asks first: dismissed, nothing is sent; accepted, the instance goes.
    const asked: string[] = [];
    p.once('dialog', (d) => { asked.push(d.message()); void d.dismiss(); });
    await p.getByRole('button', { name: 'Delete', exact: true }).click();
    assert.deepEqual(asked, ['Delete typed-box? Its disk goes with it.']);
    assert.deepEqual(deletes, []);
    await status.getByText('running', { exact: true }).waitFor();
    p.once('dialog', (d) => void d.accept());
    await p.getByRole('button', { name: 'Delete', exact: true }).click();
    await status.getByText('removed', { exact: true }).waitFor();
    assert.equal(deletes.length, 1);
    for (const b of ['Start', 'Stop', 'Restart', 'Delete']) assert.equal(await p.getByRole('button', { name: b, exact: true }).count(), 0, b);
    await p.getByRole('link', { name: '← Instances' }).click();
    await failedRow.waitFor();
    assert.equal(await list.getByRole('row').filter({ hasText: 'typed-box' }).count(), 0, 'removed: hidden from the list');
    await p.getByText('2 removed instances on this page hidden').waitFor();

    // The failed instance's page: red, with its reason; a Basic member sees it without controls.
    await p.getByRole('button', { name: 'Sign out' }).click();
    await signIn(p, base, basicKey);
    await p.goto(`${base}/console#/instances/${failedId}`);
    await p.getByRole('heading', { name: 'pull-fails' }).waitFor();
    const failed = p.getByTestId('instance-status').getByText('failed', { exact: true });
    await failed.waitFor();
    assert.equal(await colourOf(failed), bad);
    const why = p.getByTestId('instance-reason').filter({ hasText: /Failed: image pull failed/ });
    await why.waitFor();
    assert.equal(await colourOf(why), bad, 'its reason too');
    for (const b of ['Start', 'Stop', 'Restart', 'Delete']) assert.equal(await p.getByRole('button', { name: b, exact: true }).count(), 0, b);
    await shot(p, 'failed-basic');
    assert.equal(await p.evaluate(() => (window as unknown as { __injected?: number }).__injected), undefined);
    assert.deepEqual(pageErrors, []);
  } catch (e) {
    if (page) await shot(page, 'failure').catch(() => undefined); // what the page showed when it failed
    throw e;
  } finally {
    await browser?.close();
    await server.kill('SIGTERM');
    rmSync(dataDir, { recursive: true, force: true });
  }
});
