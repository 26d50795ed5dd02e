// Money in the console adds up, in dollars (issue 32, item 4), in a real browser: playwright-core
// driving Debian's chromium against a real Gantry process on the sim driver. Charges are posted
// through the operator's API with exact amounts, beside a running instance. As the Owner:
// Overview's available balance is shown with its parts and they add up to it (cash, vouchers,
// credit, owed, held for running GPUs); amounts read with two decimals and the exact amount on
// hover; the Owner's Unlimited budget shows what was spent this month; the running instance
// its cost so far (Overview and Instances); the create form the cost per hour before it runs;
// bills name what they are for (the instance, the key), not ids; the CSV export has ISO times
// and USD; a range the page refuses keeps the dates typed. No page says "units", nor a
// refusal: a Developer whose budget cannot cover an instance reads the amounts in dollars.
// Every wait is on what the page shows.
// Screenshots: test-artifacts/console/money-*.png.
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
const shot = (page: Page, name: string) => shotAs(page, `money-${name}`);

/** The exact amount (1/10000 USD) a Money element states on hover: "exactly $1,234.5678". */
async function exact(el: Locator): Promise<bigint> {
  const title = await el.locator('.money').first().getAttribute('title');
  const m = /^exactly (−?)\$([\d,]+)\.(\d+)$/.exec(title ?? '');
  assert.ok(m, `an exact amount on hover, got ${title}`);
  const units = BigInt(m[2]!.replace(/,/g, '')) * 10000n + BigInt(m[3]!.padEnd(4, '0'));
  return m[1] ? -units : units;
}

test('the console\'s money in chromium: the balance and its parts add up, two decimals with the exact amount on hover, spend of Unlimited budgets, cost preview and cost so far, names in bills, CSV, no units', { timeout: 300_000, skip: chromiumSkip }, async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'gantry-console-money-'));
  const server = await startServer({ GANTRY_DATA_DIR: dataDir, GANTRY_SIM_TIME_SCALE: '50', GANTRY_RECONCILE_INTERVAL_MS: '100', GANTRY_JOBS_POLL_MS: '50' }, { watchdogMs: 300_000 });
  let browser: Browser | undefined;
  let page: Page | undefined;
  try {
    const base = server.url;
    const { adminToken, apiKey: ownerKey, keyId: ownerKeyId } = JSON.parse(readFileSync(join(dataDir, 'credentials.json'), 'utf8'));
    const team = (await api(base, adminToken, 'GET', '/admin/v1/teams')).teams[0];
    const product = (await api(base, ownerKey, 'GET', `${GPU}/products`)).data.find((p: any) => p.id === PRODUCT);
    // Fixtures: $50 cash beside the seeded vouchers, a running instance, charges of exact amounts on the Owner's key.
    await api(base, adminToken, 'POST', `/admin/v1/teams/${team.userId}/topups`, { amount: '500000', idempotencyKey: 'money-cash' });
    const boxId = (await api(base, ownerKey, 'POST', `${GPU}/gpu/instance/create`, { name: 'money-box', productId: PRODUCT, gpuNum: 1, rootfsSize: product.minRootFS, imageUrl: 'nginx:latest', kind: 'gpu' })).id as string;
    await until('the instance runs', async () => (await api(base, ownerKey, 'GET', `${GPU}/gpu/instance?instanceId=${boxId}`)).status === 'running', { everyMs: 50 });
    const charge = (amount: string, category: string, extra: Record<string, string>) => api(base, adminToken, 'POST', `/admin/v1/teams/${team.userId}/charges`, {
      amount, category, billingMethod: 1, idempotencyKey: `money-${category}`, keyId: ownerKeyId, ...extra,
    });
    await charge('123456', 'llm', { productId: 'gantry/sim-chat-small', productName: 'gantry/sim-chat-small' });
    await charge('25000', 'gpu', { productId: PRODUCT, productName: product.name, ownerId: boxId });
    // a Developer whose $1.00 budget cannot cover an 8-GPU instance's first hour
    const dev = await api(base, adminToken, 'POST', `/admin/v1/teams/${team.userId}/members`, { email: 'dev@example.com', role: 'Developer' });
    await api(base, ownerKey, 'PUT', '/openapi/v1/user/team/budget', { member_id: dev.memberId, budget_type: 'One-time', budget_limit: 10000 });
    const devKey = (await api(base, adminToken, 'POST', `/admin/v1/members/${dev.memberId}/keys`, { name: 'dev' })).apiKey;

    browser = await launch();
    page = browser.page;
    const p = page;
    await signIn(p, base, ownerKey, false, browser.pageErrors);

    // Overview: the available balance and its parts, which add up to it.
    await p.getByRole('heading', { name: 'Balance' }).waitFor();
    const card = (label: string) => p.locator('.card').filter({ has: p.locator('.label', { hasText: new RegExp(`^${label}$`) }) });
    const [available, cash, vouchers, credit, owed, held] = await Promise.all(
      ['Available', 'Cash', 'Vouchers', 'Credit limit', 'Owed', 'Held for running GPUs'].map((l) => exact(card(l))));
    assert.equal(available, cash! + vouchers! + credit! - owed! - held!, 'the parts add up to the available balance');
    assert.equal(cash, 500000n);
    assert.ok(held! > 0n, 'the running instance\'s first hour is held');
    assert.equal(await card('Cash').locator('.value').textContent(), '$50.00');
    await p.getByTestId('balance-parts').getByText(/^Available = cash \$50\.00 \+ vouchers \$[\d,.]+ \+ credit limit \$[\d,.]+ − owed \$[\d,.]+ − held for running GPUs \$[\d,.]+\./).waitFor();
    // two decimals, the exact amount on hover
    const llm = card('llm');
    assert.equal(await llm.locator('.value').textContent(), '$12.35');
    assert.equal(await llm.locator('.money').getAttribute('title'), 'exactly $12.3456');
    // the Owner's Unlimited budget: what was spent this month, not $0.00
    const ownerRow = p.getByRole('table', { name: 'Budgets' }).getByRole('row').filter({ hasText: 'owner@gantry.local' });
    await ownerRow.getByText(/this month/).waitFor();
    const spent = await exact(ownerRow.getByRole('cell').nth(3));
    assert.ok(spent >= 123456n + 25000n, `the Owner spent at least the two charges, shown ${spent}`);
    // the running instance's cost so far (the charge posted on it, and its metered seconds)
    const runningRow = p.getByRole('table', { name: 'Running instances' }).getByRole('row').filter({ hasText: 'money-box' });
    await runningRow.getByText(/^\$2\.5\d$/).waitFor();
    assert.ok(!/\bunits\b/i.test(await p.locator('main').textContent() ?? ''), 'no "units" on Overview');
    await shot(p, 'overview');

    // Instances: cost so far on each, and the cost per hour before creating one.
    await p.getByRole('link', { name: 'Instances' }).click();
    const boxRow = p.getByRole('table', { name: 'Instances' }).getByRole('row').filter({ hasText: 'money-box' });
    await boxRow.getByText(/^\$2\.5\d$/).waitFor();
    await p.getByRole('button', { name: 'Create an instance' }).click();
    const form = p.getByRole('form', { name: 'Create an instance' });
    await form.getByLabel('GPUs').fill('2');
    const price = BigInt(product.price);
    const cents = (u: bigint) => `$${(u + 50n) / 10000n}.${String(((u + 50n) / 100n) % 100n).padStart(2, '0')}`;
    const preview = p.getByRole('status', { name: 'Cost of this instance' });
    await preview.getByText(`${cents(price * 2n)} per hour`).waitFor();
    assert.match(await preview.textContent() ?? '', new RegExp(`× 2 GPUs\\); \\${cents(price * 48n)} a day`));
    await shot(p, 'instances');
    await form.getByRole('button', { name: 'Cancel' }).click();

    // Usage: bills name what they are for; the CSV has ISO times and USD.
    await p.getByRole('link', { name: 'Usage and bills' }).click();
    const bills = p.getByRole('table', { name: 'Usage bills' });
    const llmRow = bills.getByRole('row').filter({ hasText: 'gantry/sim-chat-small' });
    await llmRow.getByRole('cell', { name: 'key default', exact: true }).waitFor();
    await llmRow.getByText('$12.35', { exact: true }).first().waitFor(); // the amount (and what was paid)
    const gpuRow = bills.getByRole('row').filter({ hasText: 'instance money-box' });
    await gpuRow.first().waitFor();
    const cellsText = await bills.textContent() ?? '';
    assert.ok(!cellsText.includes(ownerKeyId) && !cellsText.includes(boxId), 'no ids in the bills');
    assert.ok(!/\bunits\b/i.test(await p.locator('main').textContent() ?? ''), 'no "units" on Usage');
    const [download] = await Promise.all([p.waitForEvent('download'), p.getByRole('button', { name: 'Export CSV' }).click()]);
    const csv = readFileSync((await download.path())!, 'utf8').split('\n');
    assert.equal(csv[0], 'start_utc,end_utc,category,product,for,for_id,amount_usd,vouchers_usd,paid_usd');
    const llmLine = csv.find((l) => l.includes(',llm,'));
    assert.match(llmLine ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000Z,\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000Z,llm,gantry\/sim-chat-small,key default,key_\w+,12\.3456,/);
    assert.ok(csv.some((l) => l.includes(',instance money-box,')), csv.join('\n'));
    await shot(p, 'usage');
    // a range refused by the page keeps the dates typed
    const range = p.getByRole('form', { name: 'Usage range' });
    await range.getByLabel(/^From/).fill('2026-11-20');
    await range.getByLabel(/^To/).fill('2026-11-10');
    await range.getByRole('button', { name: 'Show' }).click();
    await p.getByRole('alert').filter({ hasText: 'the range ends before it starts' }).waitFor();
    assert.deepEqual([await range.getByLabel(/^From/).inputValue(), await range.getByLabel(/^To/).inputValue()], ['2026-11-20', '2026-11-10']);
    await p.getByRole('button', { name: 'Sign out' }).click();

    // A refusal in dollars: the Developer's $1.00 budget cannot cover 8 GPUs' first hour.
    await signIn(p, base, devKey, false, browser.pageErrors);
    await p.getByRole('link', { name: 'Instances' }).click();
    await p.getByRole('button', { name: 'Create an instance' }).click();
    await form.getByLabel('Instance name').fill('too-big');
    await form.getByLabel('GPUs').fill('8');
    await form.getByRole('button', { name: 'Create', exact: true }).click();
    const refusal = p.getByRole('alert').filter({ hasText: 'budget' });
    await refusal.waitFor();
    const said = await refusal.textContent() ?? '';
    assert.ok(said.includes(`$1.00 left, ${cents(price * 8n)} needed`), said);
    assert.ok(!/\bunits\b/.test(said), said);
    assert.equal(await form.getByLabel('GPUs').inputValue(), '8', 'what was typed stays');
    await shot(p, 'refused-in-dollars');
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
