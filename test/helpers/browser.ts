// What every browser test of the console shares: Debian's chromium driven by playwright-core
// (no browser download), the skip rule (skipped with its reason where no chromium exists, never
// in CI: GANTRY_TEST_REQUIRE_CHROMIUM=1), the launch flags this machine's closed network needs,
// sign-in as a person does it, calls to the API beside the page, and waits on what the page
// shows that say what it showed instead when it does not come.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext, type Locator, type Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';
/** Screenshots of the browser tests (not committed). */
export const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/console/', import.meta.url));

/** `false` where the browser tests run, else why they are skipped; CI (.ci/run) requires chromium. */
export const chromiumSkip: false | string = existsSync(CHROMIUM) || process.env.GANTRY_TEST_REQUIRE_CHROMIUM === '1'
  ? false : `no ${CHROMIUM}: install Debian's chromium (apt-get install chromium) to run the browser tests`;

/** Calls the API as a client beside the page would; a refusal fails the test with its body. */
export async function api(base: string, token: string, method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(base + path, {
    method, headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  assert.ok(res.ok, `${method} ${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : {};
}

export interface Browser {
  context: BrowserContext;
  page: Page;
  /** Script errors the page raised (a test ends by asserting there were none). */
  pageErrors: string[];
  /** Closes the browser and removes its profile. */
  close(): Promise<void>;
}

/**
 * Starts chromium headless with a new empty profile. Without the background-networking flags
 * Chromium's connections are refused by this machine's closed network, many at a time (machine docs).
 */
export async function launch(viewport = { width: 1200, height: 900 }): Promise<Browser> {
  assert.ok(existsSync(CHROMIUM), `GANTRY_TEST_REQUIRE_CHROMIUM=1 and no ${CHROMIUM}`);
  mkdirSync(ARTIFACTS, { recursive: true });
  const userDataDir = mkdtempSync(join(tmpdir(), 'gantry-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM, viewport,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
  });
  const page = context.pages()[0] ?? await context.newPage();
  const pageErrors: string[] = [];
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  // What the page asked for and has no answer to yet, for shows() to name when a page stalls.
  const started = new Map<unknown, string>();
  page.on('request', (r) => started.set(r, `${r.method()} ${r.url()} since ${new Date().toISOString()}`));
  page.on('requestfinished', (r) => started.delete(r));
  page.on('requestfailed', (r) => started.delete(r));
  // and what the browser said (a CSP refusal or a module that does not resolve is a console
  // message, not a page error): a stalled page once showed neither an error nor a pending request
  const said: string[] = [];
  page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') said.push(`${m.type()}: ${m.text()}`); });
  inFlight.set(page, () => [...started.values()]);
  consoleOf.set(page, () => said.slice(-20));
  return {
    context, page, pageErrors,
    async close() {
      await context.close().catch(() => {});
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

/** Per page, the requests it has made that have no answer yet (launch() keeps them). */
const inFlight = new WeakMap<Page, () => string[]>();
/** Per page, the browser's last console errors and warnings. */
const consoleOf = new WeakMap<Page, () => string[]>();

/** A full-page screenshot into test-artifacts/console/<name>.png. */
export async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
}

/**
 * Waits for what the page should show; the first time it does not come in 20 s, says what the
 * page showed instead (stderr, page errors, a screenshot) and loads the page once more. Seen in
 * CI under load: a page stayed 30 s without its sign-in form or heading, and every run alone
 * passes; the cause is not found yet (stop 37's note).
 */
export async function shows(page: Page, what: string, locator: Locator, pageErrors: string[] = []): Promise<void> {
  try {
    await locator.waitFor({ timeout: 20_000 });
  } catch (e) {
    const file = `stalled-${what.replace(/[^a-z0-9]+/gi, '-')}`;
    await shot(page, file).catch(() => {});
    const shown = await page.locator('body').textContent().catch((err: unknown) => String(err));
    console.error(`browser: no ${what} in 20 s (${String(e)}); the page at ${page.url()} showed: ${(shown ?? '').slice(0, 1000)}; page errors: ${pageErrors.join(' | ')}; requests without an answer: ${(inFlight.get(page)?.() ?? []).join(' | ') || 'none'}; console: ${(consoleOf.get(page)?.() ?? []).join(' | ') || 'nothing'}; loading it again`);
    await page.reload();
    await locator.waitFor({ timeout: 30_000 });
  }
}

/** Signs in on the console's form as a person does (an API key, or the operator token). */
export async function signIn(page: Page, base: string, secret: string, operator = false, pageErrors: string[] = []): Promise<void> {
  await page.goto(`${base}/console`);
  await shows(page, 'sign-in form', page.getByRole('button', { name: 'Sign in' }), pageErrors);
  await page.getByLabel(operator ? 'the operator token' : 'an API key').check(); // people sign in with an e-mail address by default
  await page.getByLabel(operator ? 'Operator token' : 'API key', { exact: true }).fill(secret);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await shows(page, 'signed-in shell', page.getByRole('button', { name: 'Sign out' }), pageErrors);
}
