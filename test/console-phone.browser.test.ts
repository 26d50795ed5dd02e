// The console on a phone (issue 32, item 7): playwright-core driving Debian's chromium at
// 366×740 against a real Gantry process (sim driver, jobs running), with fixtures whose names
// are long (an e-mail, an instance, a webhook URL, a key) through the public API. The
// navigation is collapsed behind a Menu button that opens and closes it; for every page each
// role sees (Owner, Basic, Billing, the operator), and the detail pages of an instance, an
// endpoint, a webhook endpoint and a tenant, nothing scrolls sideways
// (document.documentElement.scrollWidth <= innerWidth); a wide table scrolls inside its own
// box with its first column kept in view (sticky). Every wait is on what the page shows.
// Screenshots go to test-artifacts/console/phone-*.png. Skipped only where no chromium exists.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { api, chromiumSkip, launch, shot as shotAs, shows, type Browser } from './helpers/browser.ts';
import { startServer } from './helpers/server.ts';
import { until } from './helpers/wait.ts';

const GPU = '/gpu-instance/openapi/v1';
const PHONE = { width: 366, height: 740 };
const LONG_EMAIL = 'a.member.with.a.rather.long.address.for.phones@a-long-company-domain.example.com';
const LONG_NAME = 'an-instance-with-a-very-long-name-that-does-not-fit-on-a-phone-screen';

const shot = (page: Page, name: string) => shotAs(page, `phone-${name}`);

/** Signs in on the phone as a person does: the signed-in shell shows its Menu button (the navigation is collapsed). */
async function signInPhone(page: Page, base: string, secret: string, operator = false, pageErrors: string[] = []): Promise<void> {
  await page.goto(`${base}/console`);
  await shows(page, 'sign-in form', page.getByRole('button', { name: 'Sign in' }), pageErrors);
  await page.getByLabel(operator ? 'the operator token' : 'an API key').check(); // people sign in with an e-mail address by default
  await page.getByLabel(operator ? 'Operator token' : 'API key', { exact: true }).fill(secret);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await shows(page, 'signed-in shell', page.getByRole('button', { name: 'Menu' }), pageErrors);
}

async function signOut(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Menu' }).click();
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('button', { name: 'Sign in' }).waitFor();
}

/** The addresses of the pages the navigation offers (opened, read, closed again). */
async function navPages(page: Page): Promise<string[]> {
  const menu = page.getByRole('button', { name: 'Menu' });
  await menu.click();
  const nav = page.getByRole('navigation', { name: 'Console' });
  await nav.getByRole('link').first().waitFor();
  const hrefs = await nav.getByRole('link').evaluateAll((as) => as.map((a) => a.getAttribute('href') ?? ''));
  await menu.click();
  await nav.getByRole('link').first().waitFor({ state: 'hidden' });
  return hrefs.map((h) => h.replace(/^#\//, ''));
}

/**
 * Opens a page by its address and waits for it to have drawn what it loads: its heading, no
 * part still loading, each chart drawn or said to be empty.
 */
async function open(page: Page, base: string, path: string): Promise<void> {
  await page.goto(`${base}/console#/${path}`);
  const main = page.locator('main');
  await main.locator('h1').first().waitFor();
  await until(`#/${path} finished loading`, async () => (await main.locator('[aria-busy="true"]').count()) === 0);
  await until(`#/${path}'s charts drawn`, async () => main.locator('.chart').evaluateAll((cs) => cs.every((c) => (c as HTMLElement).dataset.drawn === 'true' || !c.isConnected)));
}

/** How wide the document is against the screen, and the widest element sticking out (to say why). */
async function sideways(page: Page): Promise<{ scrollWidth: number; innerWidth: number; culprit: string }> {
  return page.evaluate(() => {
    const vw = window.innerWidth;
    let culprit = '';
    let widest = vw;
    for (const el of document.querySelectorAll('body *')) {
      const r = el.getBoundingClientRect();
      // inside a box that scrolls by itself, sticking out is that box's business
      if (r.right > widest && !el.closest('.table-wrap, .chart, pre, dialog')) {
        widest = r.right;
        culprit = `${el.tagName.toLowerCase()}.${(el as HTMLElement).className} "${(el.textContent ?? '').slice(0, 60)}" right=${Math.round(r.right)}`;
      }
    }
    return { scrollWidth: document.documentElement.scrollWidth, innerWidth: vw, culprit };
  });
}

test('the console on a phone: the navigation collapses, tables scroll in their own box with a sticky first column, no page scrolls sideways for any role', { timeout: 300_000, skip: chromiumSkip }, async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'gantry-console-phone-'));
  const server = await startServer({ GANTRY_DATA_DIR: dataDir, GANTRY_SIM_TIME_SCALE: '50', GANTRY_RECONCILE_INTERVAL_MS: '100', GANTRY_JOBS_POLL_MS: '50' }, { watchdogMs: 300_000 });
  let browser: Browser | undefined;
  let page: Page | undefined;
  try {
    const base = server.url;
    const { adminToken, apiKey: ownerKey } = JSON.parse(readFileSync(join(dataDir, 'credentials.json'), 'utf8'));
    // Fixtures with long names, through the public API.
    const team = (await api(base, adminToken, 'GET', '/admin/v1/teams')).teams[0];
    const member = async (email: string, role: string) => {
      const m = await api(base, adminToken, 'POST', `/admin/v1/teams/${team.userId}/members`, { email, role });
      return (await api(base, adminToken, 'POST', `/admin/v1/members/${m.memberId}/keys`, { name: `${role.toLowerCase()}-key-with-a-long-name-for-the-phone` })).apiKey as string;
    };
    const basicKey = await member(LONG_EMAIL, 'Basic');
    const billingKey = await member('billing@example.com', 'Billing');
    await api(base, ownerKey, 'POST', '/openai/v1/chat/completions', { model: 'gantry/sim-chat-small', messages: [{ role: 'user', content: 'Hello' }], max_tokens: 20 });
    const instance = await api(base, ownerKey, 'POST', `${GPU}/gpu/instance/create`, { name: LONG_NAME, productId: 'prd_rtx4090_24g', gpuNum: 1, rootfsSize: 50, imageUrl: 'nginx:latest', kind: 'gpu' });
    const endpoint = await api(base, ownerKey, 'POST', `${GPU}/endpoint/create`, {
      endpoint: { name: 'echo-endpoint-with-a-long-name-too', appName: 'echo', workerConfig: { minNum: 1, maxNum: 2, freeTimeout: 60, maxConcurrent: 4, gpuNum: 1, requestTimeout: 120 },
        ports: [{ port: 8080 }], policy: { type: 'queue', value: 4 }, image: { image: 'hashicorp/http-echo' }, products: [{ id: 'prd_rtx4090_24g' }], healthy: { path: '/' } },
    });
    const hook = await api(base, ownerKey, 'POST', '/openapi/v1/webhook/endpoints', {
      url: 'https://hooks.a-long-receiver-domain.example.com/gantry/webhooks/receive-every-event-here', events: ['batch.completed', 'batch.failed', 'instance.state_changed'], description: 'the phone test',
    });
    const upload = new FormData();
    upload.append('purpose', 'batch');
    upload.append('file', new Blob(['{"custom_id":"a","method":"POST","url":"/v1/chat/completions","body":{"model":"gantry/sim-chat-small","messages":[{"role":"user","content":"hi"}]}}\n']), 'a-batch-input-file-with-a-long-name.jsonl');
    const file = await (await fetch(`${base}/openai/v1/files`, { method: 'POST', headers: { authorization: `Bearer ${ownerKey}` }, body: upload })).json() as { id: string };
    await api(base, ownerKey, 'POST', '/openai/v1/batches', { input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '48h' });

    browser = await launch(PHONE);
    page = browser.page;
    const p = page;
    const { pageErrors } = browser;
    const wide: string[] = [];
    const check = async (who: string, path: string) => {
      await open(p, base, path);
      const s = await sideways(p);
      if (s.scrollWidth > s.innerWidth) {
        wide.push(`${who} #/${path}: ${s.scrollWidth} px wide in ${s.innerWidth} (${s.culprit})`);
        await shot(p, `wide-${who}-${path.replace(/\W+/g, '-')}`);
      }
    };

    // The Owner: the navigation is collapsed behind Menu, which opens and closes it; a link closes it too.
    await signInPhone(p, base, ownerKey, false, pageErrors);
    const menu = p.getByRole('button', { name: 'Menu' });
    const nav = p.getByRole('navigation', { name: 'Console' });
    assert.equal(await menu.getAttribute('aria-expanded'), 'false');
    assert.equal(await nav.getByRole('link', { name: 'Keys', exact: true }).isVisible(), false, 'the pages are behind the menu');
    await shot(p, 'menu-closed');
    await menu.click();
    assert.equal(await menu.getAttribute('aria-expanded'), 'true');
    await nav.getByRole('link', { name: 'Members and budgets' }).click();
    await p.getByRole('heading', { name: 'Members and budgets' }).waitFor();
    await nav.getByRole('link', { name: 'Keys', exact: true }).waitFor({ state: 'hidden' });
    assert.equal(await menu.getAttribute('aria-expanded'), 'false', 'choosing a page closes the menu');

    // A wide table scrolls inside its own box, its first column in view.
    const members = p.getByRole('table', { name: 'Members' });
    await members.getByRole('row').filter({ hasText: LONG_EMAIL }).waitFor();
    const box = p.locator('.table-wrap').filter({ has: members });
    const scroll = await box.evaluate((el) => ({ scrolls: el.scrollWidth > el.clientWidth, overflow: getComputedStyle(el).overflowX, right: el.getBoundingClientRect().right }));
    assert.ok(scroll.scrolls, 'the members table is wider than the phone: its box scrolls');
    assert.equal(scroll.overflow, 'auto');
    assert.ok(scroll.right <= PHONE.width, `the box stays on screen (right edge ${scroll.right})`);
    const firstCell = members.getByRole('cell').filter({ hasText: LONG_EMAIL }).first();
    assert.equal(await firstCell.evaluate((el) => getComputedStyle(el).position), 'sticky');
    await box.evaluate((el) => { el.scrollLeft = el.scrollWidth; });
    const left = await firstCell.evaluate((el) => el.getBoundingClientRect().left);
    assert.ok(left >= 0 && left < 40, `scrolled to its end, the first column stays in view (left ${left})`);
    await shot(p, 'members');

    const ownerPages = await navPages(p);
    assert.ok(ownerPages.length >= 10, ownerPages.join());
    for (const path of [...ownerPages, `instances/${instance.id}`, `serverless/${endpoint.id}`, `webhooks/${hook.id}`]) await check('owner', path);
    await open(p, base, 'files');
    await shot(p, 'files');
    await signOut(p);

    // A Basic member and a Billing member: every page they see.
    for (const [who, key] of [['basic', basicKey], ['billing', billingKey]] as const) {
      await signInPhone(p, base, key, false, pageErrors);
      const pages = await navPages(p);
      assert.ok(pages.length >= 1, who);
      for (const path of pages) await check(who, path);
      await signOut(p);
    }

    // The operator: each view, and a tenant.
    await signInPhone(p, base, adminToken, true, pageErrors);
    for (const path of ['operator/tenants', `operator/tenants/${team.userId}`, 'operator/models', 'operator/gpu']) await check('operator', path);
    await shot(p, 'operator');

    assert.deepEqual(wide, [], 'pages wider than the phone');
    assert.deepEqual(pageErrors, []);
  } catch (e) {
    if (page) await shot(page, 'failure').catch(() => undefined);
    throw e;
  } finally {
    await browser?.close();
    await server.kill('SIGTERM');
    rmSync(dataDir, { recursive: true, force: true });
  }
});
