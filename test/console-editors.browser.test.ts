// The console's editors show what is saved, in a real browser (issue 32, item 3, and item 1 for
// the budget and policy forms): playwright-core driving Debian's chromium against a real Gantry
// process. As an Owner: a member's $30 monthly budget reads as such on Members and its editor
// starts from it (Save without a change keeps it); a limit below $1.00 or not an amount is
// refused at the field and nothing is sent; a key's budget reads and prefills the same on Keys;
// the Owner creates a key for another member (shown once, for that member); choosing another
// member closes the previous member's editors and the secret; a policy the API refuses keeps
// what was ticked and never says "Saved". As the operator: creating a team hands over its
// Owner's key, with which the new team signs in. Every wait is on what the page shows.
// Screenshots: test-artifacts/console/editors-*.png.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { api, chromiumSkip, launch, shot as shotAs, signIn, type Browser } from './helpers/browser.ts';
import { startServer } from './helpers/server.ts';

const shot = (page: Page, name: string) => shotAs(page, `editors-${name}`);
const TEAM_NAME = 'Acme <b>labs</b>';

test('the console\'s editors in chromium: saved budgets shown and prefilled, keys for another member, switching member, policy refusals, the new team\'s Owner key', { timeout: 300_000, skip: chromiumSkip }, async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'gantry-console-editors-'));
  const server = await startServer({ GANTRY_DATA_DIR: dataDir }, { watchdogMs: 300_000 });
  let browser: Browser | undefined;
  let page: Page | undefined;
  try {
    const base = server.url;
    const { adminToken, apiKey: ownerKey } = JSON.parse(readFileSync(join(dataDir, 'credentials.json'), 'utf8'));
    // Fixtures through the public API: a Developer with a $30 monthly budget and a key with a $7.50 one-time budget; a Basic member.
    const team = (await api(base, adminToken, 'GET', '/admin/v1/teams')).teams[0];
    const dev = (await api(base, ownerKey, 'POST', '/openapi/v1/user/team/members', { email: 'dev@example.com', role: 'Developer' })).memberId as string;
    const basic = (await api(base, ownerKey, 'POST', '/openapi/v1/user/team/members', { email: 'basic@example.com', role: 'Basic' })).memberId as string;
    await api(base, ownerKey, 'PUT', '/openapi/v1/user/team/budget', { member_id: dev, budget_type: 'Recurring', budget_limit: 300000, cycle: 'Monthly' });
    const devKey = await api(base, adminToken, 'POST', `/admin/v1/members/${dev}/keys`, { name: 'dev-key' });
    await api(base, ownerKey, 'PUT', '/openapi/v1/user/team/key-budget', { member_id: dev, key_id: devKey.keyId, budget_type: 'One-time', budget_limit: 75000 });
    await api(base, adminToken, 'POST', `/admin/v1/members/${basic}/keys`, { name: 'basic-key' });
    const memberBudget = async () => (await api(base, ownerKey, 'GET', '/openapi/v1/user/team/budget-list')).budgets.find((b: any) => b.member_id === dev);
    const budgetPuts: string[] = [];

    browser = await launch();
    page = browser.page;
    const p = page;
    p.on('request', (r) => { if (r.method() === 'PUT' && r.url().includes('/budget')) budgetPuts.push(r.url()); });
    await signIn(p, base, ownerKey, false, browser.pageErrors);

    // Members: the saved budget, and its editor starting from it.
    await p.getByRole('link', { name: 'Members and budgets' }).click();
    const devRow = p.getByRole('table', { name: 'Members' }).getByRole('row').filter({ hasText: 'dev@example.com' });
    await devRow.getByTestId('budget-summary').getByText('$30.00 left of $30.00 monthly').waitFor();
    const editor = devRow.getByRole('form', { name: 'Budget of dev@example.com' });
    assert.equal(await editor.getByLabel('Budget type').inputValue(), 'Recurring');
    assert.equal(await editor.getByLabel('Limit (USD, at least 1.00)').inputValue(), '30.00');
    await editor.getByRole('button', { name: 'Save budget' }).click();
    await editor.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    const kept = await memberBudget();
    assert.deepEqual([kept.budget_type, kept.budget_limit], ['Recurring', 300000], 'Save without a change keeps the budget');
    // a limit that is not one is refused at the field, nothing sent, what was typed kept
    const puts = budgetPuts.length;
    for (const [typed, why] of [['0.50', 'must be at least $1.00'], ['thirty', 'enter dollars, like 30 or 12.50']] as const) {
      await editor.getByLabel('Limit (USD, at least 1.00)').fill(typed);
      await editor.getByRole('button', { name: 'Save budget' }).click();
      await editor.getByRole('alert').filter({ hasText: why }).waitFor();
      assert.equal(await editor.getByLabel('Limit (USD, at least 1.00)').getAttribute('aria-invalid'), 'true');
      assert.equal(await editor.getByLabel('Limit (USD, at least 1.00)').inputValue(), typed);
      assert.equal(await editor.getByText('Saved.').count(), 0, 'never "Saved." beside an error');
    }
    assert.equal(budgetPuts.length, puts, 'nothing sent');
    await shot(p, 'members');
    await editor.getByLabel('Limit (USD, at least 1.00)').fill('45');
    await editor.getByRole('button', { name: 'Save budget' }).click();
    await devRow.getByTestId('budget-summary').getByText('$45.00 left of $45.00 monthly').waitFor();
    assert.equal((await memberBudget()).budget_limit, 450000);

    // Keys: the member's keys with their saved budgets; the editor prefilled.
    await p.getByRole('link', { name: 'Keys', exact: true }).click();
    await p.getByRole('heading', { name: 'Keys' }).waitFor();
    const member = p.getByRole('combobox', { name: 'Member' });
    await member.selectOption({ label: 'dev@example.com (Developer)' });
    const keyRow = p.getByRole('table', { name: 'Keys' }).getByRole('row').filter({ hasText: 'dev-key' });
    await keyRow.getByText('$7.50 left of $7.50 one-time').waitFor();
    await keyRow.getByRole('button', { name: 'Edit' }).click();
    const keyEditor = p.getByRole('form', { name: 'Key budget' });
    await keyEditor.waitFor();
    assert.equal(await keyEditor.getByLabel('Budget type').inputValue(), 'One-time');
    assert.equal(await keyEditor.getByLabel('Limit (USD, at least 1.00)').inputValue(), '7.50');

    // A policy the API refuses (only the models ticked, none ticked) keeps the choice, no "Saved."
    const policy = p.getByRole('form', { name: 'Model access policy' });
    await policy.getByLabel('only the models ticked').check();
    await policy.getByRole('button', { name: 'Save policy' }).click();
    await p.getByRole('alert').filter({ hasText: /allowedModels/ }).waitFor();
    assert.equal(await policy.getByLabel('only the models ticked').isChecked(), true, 'the mode chosen stays');
    assert.equal(await policy.getByText('Saved.').count(), 0);
    const model = policy.getByRole('checkbox').first();
    const modelId = await model.getAttribute('value');
    await model.check();
    await policy.getByRole('button', { name: 'Save policy' }).click();
    await policy.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    assert.equal(await p.getByRole('alert').count(), 0, 'the refusal went with the save that worked');
    const saved = await api(base, ownerKey, 'GET', `/openapi/v2/user/key/${devKey.keyId}/model-access-policy`);
    assert.deepEqual([saved.policy.mode, saved.policy.allowedModels.map((m: any) => m.id)], ['selected', [modelId]]);
    assert.equal(await policy.getByRole('checkbox', { name: modelId! }).isChecked(), true, 'the saved choice stays ticked');

    // The Owner creates a key for the Developer: shown once, and it is the Developer's.
    await p.getByLabel('New key name (for dev@example.com)').fill('handed-over');
    await p.getByRole('button', { name: 'Create key' }).click();
    const banner = p.getByRole('status').filter({ hasText: 'New key handed-over for dev@example.com (shown once' });
    await banner.waitFor();
    const secret = (await p.getByTestId('new-key').textContent())!;
    const mine = await api(base, secret, 'GET', '/openapi/v1/user/keys');
    assert.deepEqual(mine.keys.map((k: any) => [k.name, k.memberId]), [['dev-key', dev], ['handed-over', dev]]);
    await p.getByRole('table', { name: 'Keys' }).getByRole('row').filter({ hasText: 'handed-over' }).waitFor();
    await shot(p, 'keys-dev');

    // Choosing another member closes the previous member's editors and the secret shown once.
    await member.selectOption({ label: 'basic@example.com (Basic)' });
    await p.getByRole('table', { name: 'Keys' }).getByRole('row').filter({ hasText: 'basic-key' }).waitFor();
    assert.equal(await banner.count(), 0, 'the secret is gone');
    assert.equal(await p.getByTestId('new-key').count(), 0);
    for (const form of ['Key budget', 'Model access policy']) assert.equal(await p.getByRole('form', { name: form }).count(), 0, form);
    assert.equal(await p.getByRole('heading', { name: /dev-key/ }).count(), 0);
    await shot(p, 'keys-switched');
    await p.getByRole('button', { name: 'Sign out' }).click();

    // The operator creates a team: its Owner's key is handed over, and the new team signs in with it.
    await signIn(p, base, adminToken, true, browser.pageErrors);
    const create = p.getByRole('form', { name: 'Create a team' });
    await create.getByLabel('Team name').fill(TEAM_NAME);
    await create.getByLabel('Owner e-mail').fill('owner@acme.example');
    await create.getByRole('button', { name: 'Create team' }).click();
    const handover = p.getByRole('status').filter({ hasText: `Team ${TEAM_NAME} created. Its Owner (owner@acme.example) signs in with this key, shown once` });
    await handover.waitFor();
    const ownerSecret = (await handover.getByTestId('owner-key').textContent())!;
    assert.match(ownerSecret, /^sk_/);
    await p.getByRole('table', { name: 'Tenants' }).getByRole('link', { name: TEAM_NAME, exact: true }).waitFor();
    assert.equal(await p.locator('main b').count(), 0, 'markup in a team name stays text');
    await shot(p, 'operator-handover');
    // top-up amounts are checked at their field
    await p.getByRole('table', { name: 'Tenants' }).getByRole('link', { name: team.name }).click();
    await p.getByLabel('Top up (USD)').fill('-3');
    await p.getByRole('button', { name: 'Top up', exact: true }).click();
    await p.getByRole('alert').filter({ hasText: 'enter dollars, like 30 or 12.50' }).waitFor();
    assert.equal(await p.getByLabel('Top up (USD)').getAttribute('aria-invalid'), 'true');
    await p.getByRole('button', { name: 'Sign out' }).click();
    await signIn(p, base, ownerSecret, false, browser.pageErrors);
    await p.getByText(/^Owner · /).waitFor();
    const teams = (await api(base, adminToken, 'GET', '/admin/v1/teams')).teams;
    const acme = teams.find((t: any) => t.name === TEAM_NAME);
    assert.equal((await api(base, ownerSecret, 'GET', '/openapi/v1/user/team/members')).members[0].email, 'owner@acme.example');
    assert.ok(acme);
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
