// The console's care (issue 32, item 8, and item 1 for the webhook form) in a real browser:
// playwright-core driving Debian's chromium against a real Gantry process (sim driver, jobs
// running, private webhook addresses allowed for a local receiver that answers 500). A favicon;
// a skip link and focus moved to the page's heading on navigation; times that say UTC, the
// chart's axis too; a webhook endpoint whose receiver fails reads as failing after a test send,
// with each delivery's payload; the webhook editor keeps what was typed when the API refuses it
// and never says "Saved." beside the error; changing a role, revoking the key one is signed in
// with and suspending a team are asked first (Cancel changes nothing); a followed worker log
// stops reconnecting once its worker stopped; an unreachable server is said once with one
// Retry, and an HTML error page is never shown raw; a hidden page's address says it is not
// available to the role. Every wait is on what the page shows (or the API answers).
// Screenshots go to test-artifacts/console/care-*.png. Skipped only where no chromium exists.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { api, chromiumSkip, launch, shot as shotAs, signIn, type Browser } from './helpers/browser.ts';
import { startServer } from './helpers/server.ts';
import { until } from './helpers/wait.ts';
import { startReceiver, type Receiver } from './helpers/webhook-receiver.ts';

const GPU = '/gpu-instance/openapi/v1';
const shot = (page: Page, name: string) => shotAs(page, `care-${name}`);

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

/** Waits until the focused element is the page's heading `name`. */
async function headingFocused(page: Page, name: string): Promise<void> {
  await page.waitForFunction((n) => document.activeElement?.tagName === 'H1' && document.activeElement.textContent?.trim() === n, name);
}

/** The confirmation dialog asking `question`, answered with the button `answer`. */
async function answer(page: Page, question: string | RegExp, button: string): Promise<void> {
  const dialog = page.getByRole('dialog');
  await dialog.getByText(question).waitFor();
  await dialog.getByRole('button', { name: button, exact: true }).click();
  await dialog.waitFor({ state: 'detached' });
}


test('the console\'s care in chromium: favicon, skip link and focus, UTC times, failing webhooks with a test send and payloads, confirmations, a stopped worker\'s log, network errors, hidden pages', { timeout: 300_000, skip: chromiumSkip }, async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'gantry-console-care-'));
  const server = await startServer({ GANTRY_DATA_DIR: dataDir, GANTRY_SIM_TIME_SCALE: '50', GANTRY_RECONCILE_INTERVAL_MS: '100', GANTRY_JOBS_POLL_MS: '50', GANTRY_WEBHOOK_ALLOW_PRIVATE: '1' }, { watchdogMs: 300_000 });
  let browser: Browser | undefined;
  let page: Page | undefined;
  let rx: Receiver | undefined;
  try {
    rx = await startReceiver(500); // a receiver that fails every delivery
    const base = server.url;
    const { adminToken, apiKey: ownerKey } = JSON.parse(readFileSync(join(dataDir, 'credentials.json'), 'utf8'));
    // Fixtures through the public API: a Developer and a Basic member, a key of the Owner to sign in with and revoke, an endpoint, a webhook endpoint.
    const team = (await api(base, adminToken, 'GET', '/admin/v1/teams')).teams[0];
    await api(base, adminToken, 'POST', `/admin/v1/teams/${team.userId}/members`, { email: 'dev@example.com', role: 'Developer' });
    const basic = await api(base, adminToken, 'POST', `/admin/v1/teams/${team.userId}/members`, { email: 'basic@example.com', role: 'Basic' });
    const basicKey = (await api(base, adminToken, 'POST', `/admin/v1/members/${basic.memberId}/keys`, { name: 'basic' })).apiKey;
    const sessionKey = (await api(base, ownerKey, 'POST', '/openapi/v1/user/keys', { name: 'care-session-key' })).apiKey as string;
    const endpointId = (await api(base, ownerKey, 'POST', `${GPU}/endpoint/create`, {
      endpoint: { name: 'echo', appName: 'echo', workerConfig: { minNum: 1, maxNum: 1, freeTimeout: 60, maxConcurrent: 4, gpuNum: 1, requestTimeout: 120 },
        ports: [{ port: 8080 }], policy: { type: 'queue', value: 4 }, image: { image: 'hashicorp/http-echo' }, products: [{ id: 'prd_rtx4090_24g' }], healthy: { path: '/' } },
    })).id as string;
    const hook = await api(base, ownerKey, 'POST', '/openapi/v1/webhook/endpoints', { url: rx.url, events: ['batch.completed'], description: 'failing receiver' });
    const roleOf = async (email: string) => (await api(base, ownerKey, 'GET', '/openapi/v1/user/team/members')).members.find((m: any) => m.email === email).role as string;

    browser = await launch({ width: 1200, height: 900 });
    page = browser.page;
    const p = page;
    const { pageErrors } = browser;
    const bad = await (async () => { await p.goto(`${base}/console`); return themeColour(p, '--bad'); })();

    // A favicon, served.
    const icon = await p.locator('link[rel="icon"]').getAttribute('href');
    assert.ok(icon);
    const iconRes = await p.request.get(new URL(icon, base).href);
    assert.equal(iconRes.status(), 200);
    assert.match(iconRes.headers()['content-type'] ?? '', /^image\/svg\+xml/);

    // The skip link is the first stop of the keyboard and takes focus to the page's heading; navigating moves focus to the new heading.
    await signIn(p, base, sessionKey, false, pageErrors);
    await p.getByRole('heading', { name: 'Overview' }).waitFor();
    await p.locator('body').focus();
    await p.keyboard.press('Tab');
    const skip = p.getByRole('link', { name: 'Skip to content' });
    assert.ok(await skip.evaluate((el) => el === document.activeElement), 'the first Tab reaches the skip link');
    assert.ok(await skip.isVisible(), 'and shows it');
    await p.keyboard.press('Enter');
    await headingFocused(p, 'Overview');
    await p.getByRole('link', { name: 'Files and batches' }).click();
    await headingFocused(p, 'Files and batches');

    // Webhooks: times say UTC; a test send to a receiver that fails: the delivery says why, with its payload, and the endpoint reads as failing.
    await p.getByRole('link', { name: 'Webhooks' }).click();
    await headingFocused(p, 'Webhooks');
    const row = p.getByRole('table', { name: 'Endpoints' }).getByRole('row').filter({ hasText: rx.url });
    await row.getByText(/^\d{4}-\d\d-\d\d \d\d:\d\d UTC$/).waitFor();
    await row.getByText('enabled', { exact: true }).waitFor();
    await row.getByRole('button', { name: 'Send test' }).click();
    const sent = p.getByRole('status').filter({ hasText: 'Test event sent as' });
    const msgId = (await sent.locator('code').textContent())!;
    assert.match(msgId, /^msg_/);
    await sent.getByRole('link', { name: 'see its delivery' }).click();
    await headingFocused(p, rx.url);
    const delivery = p.getByRole('table', { name: 'Deliveries' }).getByRole('row').filter({ hasText: msgId });
    await delivery.getByText('webhook.test', { exact: true }).waitFor();
    await delivery.getByRole('cell', { name: '500', exact: true }).waitFor(); // the receiver's answer, read again by the page itself
    const failing = p.locator('.card').getByText('failing', { exact: true });
    await failing.waitFor();
    assert.equal(await failing.evaluate((el) => getComputedStyle(el).color), bad, 'a failing endpoint reads red');
    await delivery.getByText('Payload').click();
    const payload = JSON.parse(await delivery.getByLabel(`Payload of ${msgId}`).textContent() ?? '');
    assert.equal(payload.type, 'webhook.test');
    assert.equal(payload.data.endpoint_id, hook.id);
    assert.ok(rx.received.some((d) => d.headers['webhook-id'] === msgId), 'the test reached the receiver');
    await shot(p, 'webhook-failing');

    // The editor keeps what was typed when the API refuses it (no event ticked), and says "Saved." only when saved.
    const editor = p.getByRole('form', { name: 'Edit the endpoint' });
    await editor.getByLabel('Endpoint URL').fill(`${rx.url}v2`);
    await editor.getByLabel('Description').fill('typed, refused');
    await editor.getByLabel('batch.completed').uncheck();
    await editor.getByLabel('task.failed').check();
    await editor.getByLabel('task.failed').uncheck();
    await editor.getByRole('button', { name: 'Save endpoint' }).click();
    await p.getByRole('alert').filter({ hasText: /events/ }).waitFor();
    assert.equal(await editor.getByLabel('Endpoint URL').inputValue(), `${rx.url}v2`);
    assert.equal(await editor.getByLabel('Description').inputValue(), 'typed, refused');
    assert.equal(await editor.getByText('Saved.').count(), 0, 'never "Saved." beside an error');
    await editor.getByLabel('batch.failed').check();
    await editor.getByRole('button', { name: 'Save endpoint' }).click();
    await editor.getByText('Saved.').waitFor();
    assert.equal(await p.getByRole('alert').count(), 0);
    assert.equal(await editor.getByLabel('batch.failed').isChecked(), true, 'the saved choice stays ticked');
    const saved = await api(base, ownerKey, 'GET', `/openapi/v1/webhook/endpoints/${hook.id}`);
    assert.deepEqual({ url: saved.url, description: saved.description, events: saved.events }, { url: `${rx.url}v2`, description: 'typed, refused', events: ['batch.failed'] });

    // Changing a role is asked first; Cancel puts the select back and changes nothing.
    await p.getByRole('link', { name: 'Members and budgets' }).click();
    const role = p.getByRole('combobox', { name: 'Role of dev@example.com' });
    await role.waitFor();
    await role.selectOption('Admin');
    await answer(p, 'Change the role of dev@example.com from Developer to Admin?', 'Cancel');
    assert.equal(await role.inputValue(), 'Developer');
    assert.equal(await roleOf('dev@example.com'), 'Developer');
    await role.selectOption('Admin');
    await answer(p, 'Change the role of dev@example.com from Developer to Admin?', 'Make Admin');
    await until('the role changed', async () => (await roleOf('dev@example.com')) === 'Admin');
    await until('the page shows it', async () => (await role.inputValue()) === 'Admin');

    // A stopped worker's log: followed, then its worker replaced (an update of the endpoint): the page stops reconnecting and offers to reconnect.
    const logRequests: string[] = [];
    p.on('request', (r) => { if (r.url().includes('/endpoint/worker/log')) logRequests.push(r.url()); });
    await p.goto(`${base}/console#/serverless/${endpointId}`);
    await p.getByRole('heading', { name: 'echo' }).waitFor();
    // the chart's time axis says its zone
    await p.locator('.chart[data-drawn="true"]').getByText('Time (UTC)').waitFor();
    const worker = p.getByRole('table', { name: 'Workers' }).getByRole('row').filter({ hasText: 'running' }).first();
    await worker.getByRole('button', { name: 'Follow log' }).click();
    await p.getByRole('heading', { name: /^Log of worker / }).waitFor();
    await p.getByRole('status').filter({ hasText: 'Log: live' }).waitFor();
    const e = (await api(base, ownerKey, 'GET', `${GPU}/endpoint?id=${endpointId}`)).endpoint;
    await api(base, ownerKey, 'POST', `${GPU}/endpoint/update`, {
      id: e.id, name: e.name, appName: e.appName, rootfsSize: e.rootfsSize, volumeMounts: e.volumeMounts, healthy: e.healthy, products: e.products,
      ports: e.ports.map((x: any) => ({ port: Number(x.port) })), image: e.image, policy: { type: e.policy.type, value: Number(e.policy.value) },
      envs: [...e.envs, { key: 'CARE', value: 'replace the workers' }], workerConfig: e.workerConfig,
    });
    const ended = p.getByRole('status').filter({ hasText: /Log: (ended|closed)/ });
    await ended.waitFor({ timeout: 60_000 });
    await ended.getByRole('button', { name: 'Reconnect' }).waitFor();
    const asked = logRequests.length;
    assert.ok(asked >= 1 && asked <= 4, `the log was asked for ${asked} times before it stopped`);
    await shot(p, 'worker-log-ended');

    // An unreachable server: one notice with one Retry (not an error per table), then the page loads on Retry.
    await p.route('**/openai/v1/**', (r) => r.abort('internetdisconnected'));
    await p.getByRole('link', { name: 'Files and batches' }).click();
    await p.getByRole('heading', { name: 'Files and batches' }).waitFor();
    const notice = p.getByRole('alert').filter({ hasText: 'Gantry could not be reached' });
    await notice.waitFor();
    await p.getByText('Not loaded: Gantry could not be reached').nth(1).waitFor(); // the files and the batches
    assert.equal(await p.getByRole('alert').count(), 1, 'said once');
    await shot(p, 'unreachable');
    await p.unroute('**/openai/v1/**');
    await notice.getByRole('button', { name: 'Retry' }).click();
    await p.getByText('No batches.').waitFor();
    assert.equal(await p.getByRole('alert').count(), 0);

    // An HTML error page (a proxy's) is never shown raw: its status, in words, with a Retry.
    await p.route('**/openai/v1/batches?**', (r) => r.fulfill({ status: 502, contentType: 'text/html', body: '<html><body><h1>502 Bad Gateway</h1><p>nginx</p></body></html>' }));
    await p.getByRole('button', { name: 'Refresh' }).click();
    const htmlError = p.getByRole('alert').filter({ hasText: '502' });
    await htmlError.waitFor();
    const said = await htmlError.textContent() ?? '';
    assert.ok(!said.includes('<') && !said.includes('nginx'), said);
    assert.match(said, /the server answered 502/);
    await p.unroute('**/openai/v1/batches?**');
    await htmlError.getByRole('button', { name: 'Retry' }).click();
    await p.getByText('No batches.').waitFor();

    // Revoking the key one is signed in with is asked first, saying so; then the console signs out.
    await p.getByRole('link', { name: 'Keys', exact: true }).click();
    const own = p.getByRole('row').filter({ hasText: 'care-session-key' });
    await own.getByRole('button', { name: 'Revoke' }).click();
    await answer(p, 'Revoke care-session-key, the key you are signed in with?', 'Cancel');
    assert.equal(await own.getByText('active').count() > 0, true, 'Cancel leaves it active');
    await own.getByRole('button', { name: 'Revoke' }).click();
    await answer(p, 'Revoke care-session-key, the key you are signed in with?', 'Revoke key');
    await p.getByRole('button', { name: 'Sign in' }).waitFor();

    // A hidden page's address says it is not available to the role; an unknown one that there is no such page.
    await signIn(p, base, basicKey, false, pageErrors);
    await p.goto(`${base}/console#/members`);
    await p.getByRole('heading', { name: 'Not available to your role' }).waitFor();
    await p.getByText('Members and budgets (#/members) is not available to the Basic role.').waitFor();
    assert.equal(await p.title(), 'Not available · Gantry console');
    await shot(p, 'not-available');
    await p.goto(`${base}/console#/no-such-page`);
    await p.getByRole('heading', { name: 'No such page' }).waitFor();
    await p.getByRole('link', { name: 'Go to the first page' }).click();
    await p.getByRole('heading', { name: 'Overview' }).waitFor();
    await p.getByRole('button', { name: 'Sign out' }).click();

    // Suspending a team is asked first; Cancel changes nothing.
    await signIn(p, base, adminToken, true, pageErrors);
    await p.getByRole('link', { name: team.name }).click();
    await p.getByRole('button', { name: 'Suspend team' }).click();
    await answer(p, `Suspend the team ${team.name}?`, 'Cancel');
    assert.equal((await api(base, adminToken, 'GET', `/admin/v1/teams/${team.userId}`)).status, 'active');
    await p.getByRole('button', { name: 'Suspend team' }).click();
    await answer(p, `Suspend the team ${team.name}?`, 'Suspend team');
    await p.getByRole('button', { name: 'Resume team' }).waitFor();
    await p.getByRole('button', { name: 'Resume team' }).click(); // giving back is not asked
    await p.getByRole('button', { name: 'Suspend team' }).waitFor();

    assert.deepEqual(pageErrors, []);
  } catch (err) {
    if (page) await shot(page, 'failure').catch(() => undefined);
    throw err;
  } finally {
    await browser?.close();
    await rx?.close();
    await server.kill('SIGTERM');
    rmSync(dataDir, { recursive: true, force: true });
  }
});
