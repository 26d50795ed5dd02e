// Batches and tasks in a real browser (issue 32, item 6, and item 1 for their forms):
// playwright-core driving Debian's chromium against a real Gantry process (sim driver and sim
// models, jobs running). As an Owner on Files and batches: a batch input is uploaded through the
// form; a batch started on the endpoint chosen (/v1/completions) runs and the list follows it
// to COMPLETED by itself, its output offered; a batch whose input does not validate reads
// FAILED with why (each bad line's message) without a click; a refused upload keeps the file
// chosen; a file is deleted after a confirmation (Cancel keeps it). On Async tasks: a task
// shows the prompt it was asked, and the list follows it to succeeded by itself; a task the
// API refuses keeps what was typed. Names are shown as text. Every wait is on what the page
// shows. Screenshots go to test-artifacts/console/batches-*.png. Skipped only where no chromium exists.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { api, chromiumSkip, launch, shot as shotAs, signIn, type Browser } from './helpers/browser.ts';
import { startServer } from './helpers/server.ts';
import { freePort } from './helpers/own-redis.ts';

const shot = (page: Page, name: string) => shotAs(page, `batches-${name}`);
const MODEL = 'gantry/sim-chat-small';
/** A file name that would be markup if it were injected as HTML (no slash: the API keeps a name's last path segment). */
const MARKUP_FILE = '<b>bold<b>-input.jsonl';

const jsonl = (lines: unknown[]) => Buffer.from(`${lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n')}\n`);

test('batches and tasks in chromium: the endpoint chosen, running batches and tasks followed by themselves, a failed batch says why, files deleted, a task\'s prompt, refused forms keep what was typed', { timeout: 300_000, skip: chromiumSkip }, async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'gantry-console-batches-'));
  // a port of its own, not 0: the tasks' signed links name the port Gantry is reached at
  const server = await startServer({ PORT: String(await freePort()), GANTRY_DATA_DIR: dataDir, GANTRY_SIM_TIME_SCALE: '50', GANTRY_JOBS_POLL_MS: '50', GANTRY_SIM_TTFT_MS: '0' }, { watchdogMs: 300_000 });
  let browser: Browser | undefined;
  let page: Page | undefined;
  try {
    const base = server.url;
    const { apiKey: ownerKey } = JSON.parse(readFileSync(join(dataDir, 'credentials.json'), 'utf8'));
    browser = await launch({ width: 1200, height: 900 });
    page = browser.page;
    const p = page;
    const { pageErrors } = browser;
    await signIn(p, base, ownerKey, false, pageErrors);
    await p.getByRole('link', { name: 'Files and batches' }).click();
    await p.getByRole('heading', { name: 'Files and batches' }).waitFor();
    const files = p.getByRole('table', { name: 'Files' });
    const batches = p.getByRole('table', { name: 'Batches' });
    const upload = async (name: string, body: Buffer) => {
      await p.getByLabel('Batch input (JSONL)').setInputFiles({ name, mimeType: 'application/jsonl', buffer: body });
      await p.getByRole('button', { name: 'Upload', exact: true }).click();
    };

    // A refused upload (an empty file) keeps the file chosen and says why.
    await upload('empty.jsonl', Buffer.alloc(0));
    await p.getByRole('alert').waitFor();
    assert.equal(await p.getByLabel('Batch input (JSONL)').evaluate((el) => (el as HTMLInputElement).files?.[0]?.name), 'empty.jsonl');
    assert.equal(await p.getByRole('status').filter({ hasText: 'Uploaded' }).count(), 0);

    // A good input for /v1/completions, uploaded through the form (its name is text), run on the endpoint chosen.
    await upload(MARKUP_FILE, jsonl([1, 2].map((i) => ({ custom_id: `c${i}`, method: 'POST', url: '/v1/completions', body: { model: MODEL, prompt: `Say ${i}`, max_tokens: 5 } }))));
    await p.getByRole('status').filter({ hasText: `Uploaded ${MARKUP_FILE}.` }).waitFor();
    await files.getByRole('row').filter({ hasText: MARKUP_FILE }).waitFor();
    assert.equal(await p.locator('main b').count(), 0, 'markup in a file name stays text');
    const start = p.getByRole('form', { name: 'Start a batch' });
    assert.match(await start.getByLabel('Input file').locator('option:checked').textContent() ?? '', /^<b>bold<b>-input\.jsonl \(2 requests\)$/, 'the file just uploaded is chosen');
    assert.deepEqual(await start.getByLabel('Endpoint').locator('option').allTextContents(), ['/v1/chat/completions', '/v1/completions']);
    await start.getByLabel('Endpoint').selectOption('/v1/completions');
    await start.getByRole('button', { name: 'Start batch' }).click();
    const started = p.getByRole('status').filter({ hasText: /^Batch batch_\S+ started on \/v1\/completions\.$/ });
    await started.waitFor();
    const goodId = /Batch (\S+) started/.exec(await started.textContent() ?? '')![1]!;
    const good = batches.getByRole('row').filter({ hasText: goodId });
    await good.getByText('/v1/completions').waitFor();
    // followed by the page itself (no click) to its end
    await good.getByText('COMPLETED', { exact: true }).waitFor({ timeout: 60_000 });
    await good.getByText('2/2').waitFor();
    await good.getByRole('link', { name: 'output' }).waitFor();
    const batch = await api(base, ownerKey, 'GET', `/openai/v1/batches/${goodId}`);
    assert.equal(batch.endpoint, '/v1/completions');

    // An input that does not validate (a line written for another endpoint, a chat line without messages): FAILED, and why, by itself.
    await upload('bad-input.jsonl', jsonl([
      { custom_id: 'x', method: 'POST', url: '/v1/completions', body: { model: MODEL, prompt: 'hi' } },
      { custom_id: 'y', method: 'POST', url: '/v1/chat/completions', body: { model: MODEL } },
    ]));
    await p.getByRole('status').filter({ hasText: 'Uploaded bad-input.jsonl.' }).waitFor();
    await start.getByLabel('Endpoint').selectOption('/v1/chat/completions');
    await start.getByRole('button', { name: 'Start batch' }).click();
    const badStarted = p.getByRole('status').filter({ hasText: /started on \/v1\/chat\/completions/ });
    await badStarted.waitFor();
    const badId = /Batch (\S+) started/.exec(await badStarted.textContent() ?? '')![1]!;
    const failed = batches.getByRole('row').filter({ hasText: badId });
    await failed.getByText('FAILED', { exact: true }).waitFor({ timeout: 60_000 });
    const why = await failed.getByLabel(`Why batch ${badId} failed`).textContent() ?? '';
    assert.match(why, /line 1: .*\/v1\/chat\/completions/, 'the line written for another endpoint');
    assert.match(why, /line 2: .*messages/, 'each bad line says why');
    assert.equal(why, (await api(base, ownerKey, 'GET', `/openai/v1/batches/${badId}`)).errors, 'what the API says');
    await shot(p, 'failed');

    // Deleting a file is asked first; Cancel keeps it.
    const badFile = files.getByRole('row').filter({ hasText: 'bad-input.jsonl' });
    await badFile.getByRole('button', { name: 'Delete bad-input.jsonl' }).click();
    const dialog = p.getByRole('dialog');
    await dialog.getByText('Delete the file bad-input.jsonl?').waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
    assert.equal(await badFile.count(), 1);
    await badFile.getByRole('button', { name: 'Delete bad-input.jsonl' }).click();
    await dialog.getByRole('button', { name: 'Delete file' }).click();
    await p.getByRole('status').filter({ hasText: 'Deleted bad-input.jsonl.' }).waitFor();
    await badFile.waitFor({ state: 'detached' });
    const listed = (await api(base, ownerKey, 'GET', '/openai/v1/files')).data.map((f: any) => f.filename);
    assert.ok(!listed.includes('bad-input.jsonl') && listed.includes(MARKUP_FILE), listed.join());
    await shot(p, 'files');

    // Async tasks: a refused task keeps what was typed; a created one shows its prompt and is followed to its end.
    await p.getByRole('link', { name: 'Async tasks' }).click();
    await p.getByRole('heading', { name: 'Async tasks', exact: true }).waitFor();
    const speech = p.getByRole('form', { name: 'Create a speech task' });
    await speech.getByLabel('Language').fill('not a language');
    await speech.getByLabel('Text to speak').fill('Keep what I typed.');
    await speech.getByRole('button', { name: 'Create speech task' }).click();
    await p.getByRole('alert').filter({ hasText: /language/ }).waitFor();
    assert.equal(await speech.getByLabel('Language').inputValue(), 'not a language');
    assert.equal(await speech.getByLabel('Text to speak').inputValue(), 'Keep what I typed.');
    const image = p.getByRole('form', { name: 'Create an image task' });
    await image.getByLabel('Prompt').fill('a <i>red</i> kite over the dunes');
    await image.getByLabel('Width').fill('128');
    await image.getByLabel('Height').fill('128');
    await image.getByRole('button', { name: 'Create image task' }).click();
    const created = p.getByRole('status').filter({ hasText: /^Task task_\S+ created\.$/ });
    const taskId = (await created.locator('code').textContent())!;
    const task = p.getByRole('table', { name: 'Tasks' }).getByRole('row').filter({ hasText: taskId });
    await task.getByText('a <i>red</i> kite over the dunes', { exact: true }).waitFor();
    await task.getByText('succeeded', { exact: true }).waitFor({ timeout: 60_000 });
    await task.getByRole('img', { name: `Image 1 of ${taskId}` }).waitFor();
    assert.equal(await p.locator('main i').count(), 0, 'markup in a prompt stays text');
    await shot(p, 'tasks');
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
