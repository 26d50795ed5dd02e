// The console's charts load uPlot after their page renders. A person who moves on before it
// has loaded must see no error on the page they went to (issue 45: `Cannot read properties of
// null (reading 'clientWidth')`, seen under load): here the module's request is held by the
// browser's router until the person has left the usage page, then let through; the late
// import is ignored, and the chart is drawn when they come back. No timers: each step waits
// for the request, the page, or the chart.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Route } from 'playwright-core';
import { api, chromiumSkip, launch, signIn, type Browser } from './helpers/browser.ts';
import { startServer } from './helpers/server.ts';

test('a chart whose uPlot arrives after the person left its page raises no error, and draws when they come back', { timeout: 180_000, skip: chromiumSkip }, async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'gantry-console-charts-'));
  const server = await startServer({ GANTRY_DATA_DIR: dataDir }, { watchdogMs: 180_000 });
  let browser: Browser | undefined;
  try {
    const base = server.url;
    const { adminToken, apiKey: ownerKey, keyId } = JSON.parse(readFileSync(join(dataDir, 'credentials.json'), 'utf8'));
    const team = (await api(base, adminToken, 'GET', '/admin/v1/teams')).teams[0];
    // spend to chart
    await api(base, adminToken, 'POST', `/admin/v1/teams/${team.userId}/charges`, {
      amount: '123456', category: 'llm', billingMethod: 1, idempotencyKey: 'charts-llm', keyId,
      productId: 'gantry/sim-chat-small', productName: 'gantry/sim-chat-small',
    });
    browser = await launch();
    const p = browser.page;
    await signIn(p, base, ownerKey, false, browser.pageErrors);

    // hold uPlot's module until the person has moved on
    let held: Route | undefined;
    const asked = new Promise<void>((resolve) => {
      void p.route(/\/console\/vendor\/uplot@[^/]+\/dist\/uPlot\.esm\.js$/, (route) => {
        held = route;
        resolve();
      });
    });
    await p.getByRole('link', { name: 'Usage and bills' }).click();
    await asked;
    await p.getByRole('link', { name: 'Overview' }).click();
    await p.getByRole('heading', { name: 'Balance' }).waitFor();
    const loaded = p.waitForEvent('requestfinished', (r) => r.url().includes('uPlot.esm.js'));
    await held!.continue();
    await loaded;
    await p.unroute(/uPlot\.esm\.js$/);

    // back on Usage: the module is loaded (the late import's callback ran before this one), the chart drawn
    await p.getByRole('link', { name: 'Usage and bills' }).click();
    await p.locator('.chart[data-drawn="true"]').waitFor();
    await p.getByRole('link', { name: 'Overview' }).click();
    await p.getByRole('heading', { name: 'Balance' }).waitFor();
    assert.deepEqual(browser.pageErrors, [], 'no page raised an error');
  } finally {
    await browser?.close();
    await server.kill('SIGTERM');
    rmSync(dataDir, { recursive: true, force: true });
  }
});
