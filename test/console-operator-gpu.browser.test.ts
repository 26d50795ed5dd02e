// The operator's GPU catalogue view (issue 45), in a real browser: playwright-core driving
// Debian's chromium against a real Gantry process. The operator publishes a community template
// in the form (a team then lists it through the API), edits it, retires it after asking (it
// leaves the team's list; the row says retired and offers to publish it again), and retires a
// cluster after asking (Cancel keeps it; the row says retired, the API's catalogue has it
// retired). At a phone's width the view does not scroll sideways.
// Screenshots: test-artifacts/console/operator-gpu-*.png.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { api, chromiumSkip, launch, shot as shotAs, signIn, type Browser } from './helpers/browser.ts';
import { startServer } from './helpers/server.ts';

const shot = (page: Page, name: string) => shotAs(page, `operator-gpu-${name}`);
const GPU = '/gpu-instance/openapi/v1';

test('the operator\'s GPU catalogue in chromium: a community template published, edited and retired, a cluster retired; a phone\'s width', { timeout: 300_000, skip: chromiumSkip }, async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'gantry-console-opgpu-'));
  const server = await startServer({ GANTRY_DATA_DIR: dataDir }, { watchdogMs: 300_000 });
  let browser: Browser | undefined;
  try {
    const base = server.url;
    const { adminToken, apiKey: ownerKey } = JSON.parse(readFileSync(join(dataDir, 'credentials.json'), 'utf8'));
    const listed = async () => (await api(base, ownerKey, 'GET', `${GPU}/templates?channel=community&isMyCommunity=false&pageSize=100`)).template.map((t: { Id: string }) => t.Id);
    await api(base, adminToken, 'POST', '/admin/v1/gpu/clusters', { id: 'cls_old', name: 'Old hall', region: 'eu' });

    browser = await launch();
    const p = browser.page;
    await signIn(p, base, adminToken, true, browser.pageErrors);
    await p.getByRole('navigation', { name: 'Operator views' }).getByRole('link', { name: 'GPU catalogue', exact: true }).click();
    const templates = p.getByRole('table', { name: 'Templates', exact: true });
    await p.getByRole('heading', { name: 'Templates', exact: true }).waitFor();

    // Publish a community template: the team lists it.
    await p.getByRole('button', { name: 'Publish a template', exact: true }).click();
    const form = p.getByRole('form', { name: 'Publish a template' });
    await form.getByLabel('Template id (tpl_ and a-z 0-9 _)', { exact: true }).fill('tpl_community_comfy');
    await form.getByLabel('Name', { exact: true }).fill('ComfyUI');
    await form.getByLabel('Channel', { exact: true }).selectOption('community');
    await form.getByLabel('Image', { exact: true }).fill('ghcr.io/example/comfyui:1');
    await form.getByLabel('HTTP ports (comma-separated, optional)', { exact: true }).fill('8188');
    await form.getByRole('button', { name: 'Publish template', exact: true }).click();
    await form.getByRole('status').filter({ hasText: 'Published tpl_community_comfy: every team sees it.' }).waitFor();
    const row = templates.getByRole('row').filter({ hasText: 'tpl_community_comfy' });
    await row.filter({ hasText: 'published' }).waitFor();
    assert.match((await row.textContent()) ?? '', /community/);
    assert.ok((await listed()).includes('tpl_community_comfy'), 'the team lists it');
    await form.getByRole('button', { name: 'Close', exact: true }).click();

    // Edit it: the form holds what was published; the new name is listed.
    await row.getByRole('button', { name: 'Edit template tpl_community_comfy', exact: true }).click();
    const edit = p.getByRole('form', { name: 'Publish tpl_community_comfy' });
    assert.equal(await edit.getByLabel('HTTP ports (comma-separated, optional)', { exact: true }).inputValue(), '8188');
    await edit.getByLabel('Name', { exact: true }).fill('ComfyUI 2');
    await edit.getByRole('button', { name: 'Publish template', exact: true }).click();
    await row.filter({ hasText: 'ComfyUI 2' }).waitFor();
    await shot(p, 'template');
    await edit.getByRole('button', { name: 'Close', exact: true }).click();

    // Retire it: asked first; then out of the team's list, the row says so.
    await row.getByRole('button', { name: 'Retire template tpl_community_comfy', exact: true }).click();
    await p.getByRole('dialog').getByRole('button', { name: 'Retire template' }).click();
    await row.filter({ hasText: /retired \d{4}-/ }).waitFor();
    await row.getByRole('button', { name: 'Edit template tpl_community_comfy', exact: true }).filter({ hasText: 'Publish again' }).waitFor();
    assert.ok(!(await listed()).includes('tpl_community_comfy'), 'a retired template leaves the team\'s list');

    // Retire a cluster: Cancel keeps it; Retire cluster retires it.
    const clusters = p.getByRole('table', { name: 'Clusters', exact: true });
    const old = clusters.getByRole('row').filter({ hasText: 'cls_old' });
    await old.getByRole('button', { name: 'Retire cluster cls_old', exact: true }).click();
    await p.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
    assert.match((await old.textContent()) ?? '', /active/);
    await old.getByRole('button', { name: 'Retire cluster cls_old', exact: true }).click();
    await p.getByRole('dialog').getByRole('button', { name: 'Retire cluster' }).click();
    await old.filter({ hasText: /retired \d{4}-/ }).waitFor();
    const cat = await api(base, adminToken, 'GET', '/admin/v1/gpu/catalogue');
    assert.ok(cat.clusters.find((c: { id: string }) => c.id === 'cls_old').retiredAt > 0);
    assert.equal(cat.clusters.find((c: { id: string }) => c.id === 'cls_local').retiredAt, null);
    await shot(p, 'retired');

    // At a phone's width: no sideways scroll (tables scroll in their own box).
    await p.setViewportSize({ width: 366, height: 740 });
    await old.waitFor();
    assert.ok(await p.evaluate(() => document.documentElement.scrollWidth <= innerWidth), 'no sideways scroll at 366 px');
    await shot(p, 'phone');
    assert.deepEqual(browser.pageErrors, []);
  } finally {
    await browser?.close();
    await server.kill('SIGTERM');
    rmSync(dataDir, { recursive: true, force: true });
  }
});
