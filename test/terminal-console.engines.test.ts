// The console's web terminal in a real browser (issue 31): playwright-core driving Debian's
// chromium against Gantry on the docker driver and a dockerd of the test's own
// (helpers/engines.ts). The Owner signs in, opens the running instance's page, clicks "Open
// terminal" (xterm.js on the instance's WebSocket), types `echo gantry-$((6*7))` and sees
// `gantry-42`; closing the terminal ends its shell. Gantry runs in this process on a test store
// (its inventory written directly: the docker driver's own cluster follows the machine's GPUs,
// and this machine has none), reconciled by the test. Skipped, with the reason, without
// chromium, the engine or root; never where CI requires them (GANTRY_TEST_REQUIRE_CHROMIUM=1,
// GANTRY_TEST_REQUIRE_ENGINES=1). A screenshot goes to test-artifacts/console/terminal.png.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Locator } from 'playwright-core';
import { chromiumSkip, launch, shot, shows as showsOn, type Browser } from './helpers/browser.ts';
import type { TestApp } from './helpers/app.ts';
import { engineSkip, startEngine } from './helpers/engines.ts';
import { exclusive } from './helpers/exclusive.ts';
import { dockerApp, runningInstance } from './helpers/docker-instance.ts';
import { until } from './helpers/wait.ts';

const SKIP = chromiumSkip || engineSkip('dockerd');

test('the console\'s web terminal in chromium: Open terminal on a running docker instance, echo gantry-$((6*7)) shows gantry-42', { skip: SKIP, timeout: 300_000 }, async (t) => {
  const release = await exclusive('engines-and-chromium'); // not beside test/serverless-docker.engines.test.ts (helpers/exclusive.ts)
  const engine = await startEngine('dockerd').catch((e: unknown) => { release(); throw e; });
  let h: TestApp | undefined;
  let browser: Browser | undefined;
  t.after(async () => {
    await browser?.close();
    await h?.close();
    await engine.stop();
    release();
  });
  const d = await dockerApp(engine, 'gantry-term-browser');
  h = d.app;
  const { base, team } = d;
  const id = await runningInstance(d, engine, 'shell-box');

  browser = await launch();
  const { page, pageErrors } = browser;
  const shows = (what: string, locator: Locator) => showsOn(page, `terminal ${what}`, locator, pageErrors);
  await page.goto(`${base}/console`);
  await shows('sign-in form', page.getByLabel('an API key'));
  await page.getByLabel('an API key').check(); // people sign in with an e-mail address by default
  await page.getByLabel('API key', { exact: true }).fill(team.owner.apiKey);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await shows('signed-in shell', page.getByRole('button', { name: 'Sign out' }));
  await page.goto(`${base}/console#/instances/${id}`);
  await shows('instance heading', page.getByRole('heading', { name: 'shell-box' }));
  await page.getByRole('button', { name: 'Open terminal' }).click();
  await page.getByRole('status').filter({ hasText: 'Connected' }).waitFor();
  const terminal = page.getByLabel('Terminal', { exact: true });
  // the shell's prompt, then what is typed, as a user would
  await terminal.locator('.xterm-rows').filter({ hasText: '#' }).waitFor();
  await terminal.click();
  await page.keyboard.type('echo gantry-$((6*7))');
  await page.keyboard.press('Enter');
  await terminal.locator('.xterm-rows').filter({ hasText: /^.*gantry-42/m }).waitFor();
  const rows = (await terminal.locator('.xterm-rows > div').allTextContents()).map((r) => r.trim());
  assert.ok(rows.includes('gantry-42'), `the output is a line of its own, below the command: ${JSON.stringify(rows)}`);
  await shot(page, 'terminal');
  // closing the terminal ends its shell in the container
  const shells = async () => JSON.stringify((await engine.api('GET', `/containers/${id}/top`)).json.Processes);
  assert.match(await shells(), /\/bin\/sh/);
  await page.getByRole('button', { name: 'Close terminal' }).click();
  await page.getByRole('button', { name: 'Open terminal' }).waitFor();
  await until('the terminal\'s shell is gone', async () => !(await shells()).includes('/bin/sh'), { limitMs: 15_000, everyMs: 100 });
  assert.deepEqual(pageErrors, []);
});
