// A model whose upstream names its tokenizer is counted exactly: a prompt over the context is
// refused before the upstream (which the lower bound would have let through), and the budget
// reservation held during the request is the exact count, not the prompt's bytes. The setting
// is judged when the model is saved: 400 naming the field.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { once } from 'node:events';
import { Writable } from 'node:stream';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { countTokens } from 'gpt-tokenizer/encoding/cl100k_base';
import { buildTestApp, type TestApp } from '../../test/helpers/app.ts';
import { as } from '../../test/helpers/http.ts';
import { createTeam, topup } from '../../test/helpers/factories.ts';
import { until } from '../../test/helpers/wait.ts';
import { tinyTokenizerJson } from '../../test/helpers/tokenizer-json.ts';
import { upsertModel } from '../store/models.ts';
import { TEMPLATE_TOKENS_PER_MESSAGE, TEMPLATE_TOKENS_PER_REPLY } from './tokens.ts';

const WORDS = 'light river stone garden window market signal system number letter music paper orange silver quiet rapid'.split(' ');
const words = (n: number) => Array.from({ length: n }, (_, i) => WORDS[i % WORDS.length]).join(' ');

/** An OpenAI-compatible stand-in that records the requests it gets and answers when `release` says so. */
async function standIn() {
  const calls: unknown[] = [];
  let gate: Promise<void> = Promise.resolve();
  let open = () => {};
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    for await (const c of req) body += c;
    calls.push(JSON.parse(body));
    await gate;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ id: 'x', object: 'chat.completion', created: 1, model: 'up', choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }], usage: { prompt_tokens: 10, completion_tokens: 1, total_tokens: 11 } }));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}/v1`,
    calls,
    hold() { gate = new Promise((r) => { open = r; }); },
    release() { open(); },
    close() { server.close(); },
  };
}

async function withApp(fn: (t: TestApp, admin: ReturnType<typeof as>, up: Awaited<ReturnType<typeof standIn>>, dir: string) => Promise<void>, logStream?: Writable): Promise<void> {
  const up = await standIn();
  const dir = mkdtempSync(join(tmpdir(), 'gantry-tok-'));
  const t = await buildTestApp(logStream ? { logStream } : {});
  try {
    await fn(t, as(t.app, t.creds.adminToken), up, dir);
  } finally {
    await t.close();
    up.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const model = (id: string, upstream: unknown) => ({ id, title: id, contextSize: 256, inputTokenPricePerM: 1000000, outputTokenPricePerM: 1000000, status: 'available', upstream });

test('a 30,000-byte prompt to a 256-token model is refused before the upstream when its tokenizer is named (the lower bound lets it through)', async () => {
  await withApp(async (t, admin, up) => {
    assert.equal((await admin.post('/admin/v1/models?check=off', model('acme/named', { url: up.url, tokenizer: 'cl100k_base' }))).status, 200);
    assert.equal((await admin.post('/admin/v1/models?check=off', model('acme/unnamed', { url: up.url }))).status, 200);
    const u = as(t.app, t.creds.apiKey);
    const text = words(5000).slice(0, 30_000);
    assert.equal(Buffer.byteLength(text), 30_000);
    const refused = await u.post('/openai/v1/chat/completions', { model: 'acme/named', messages: [{ role: 'user', content: text }] });
    assert.equal(refused.status, 400, JSON.stringify(refused.body));
    const exact = countTokens(text) + TEMPLATE_TOKENS_PER_MESSAGE + TEMPLATE_TOKENS_PER_REPLY;
    assert.equal(refused.body.message, `This model's maximum context length is 256 tokens. However, your messages resulted in ${exact} tokens. Please reduce the length of the messages.`);
    assert.equal(refused.body.metadata.exact, true);
    assert.equal(refused.body.error.code, 'context_length_exceeded');
    assert.deepEqual(up.calls, [], 'the upstream never saw it');
    // Without the setting, ⌈30,000 / 128⌉ = 235 tokens could fit: the upstream gets it.
    const passed = await u.post('/openai/v1/chat/completions', { model: 'acme/unnamed', messages: [{ role: 'user', content: text }] });
    assert.equal(passed.status, 200, JSON.stringify(passed.body));
    assert.equal(up.calls.length, 1);
    // Completions and embeddings are counted with it too.
    const prompt = await u.post('/openai/v1/completions', { model: 'acme/named', prompt: text, max_tokens: 1 });
    assert.equal(prompt.status, 400);
    assert.equal(prompt.body.metadata.promptTokens, countTokens(text));
    assert.equal(prompt.body.metadata.exact, true);
    // A long prompt is counted only as far as it could fit: the refusal says "at least".
    const long = await u.post('/openai/v1/chat/completions', { model: 'acme/named', messages: [{ role: 'user', content: words(40_000) }], max_tokens: 6 });
    assert.equal(long.status, 400);
    assert.match(long.body.message, /you requested at least \d+ tokens \(at least \d+ in the messages, 6 in the completion\)/);
    assert.equal(long.body.metadata.exact, false);
    assert.ok(long.body.metadata.promptTokens > 250 && long.body.metadata.promptTokens < countTokens(words(40_000)), String(long.body.metadata.promptTokens));
    assert.equal(up.calls.length, 1);
  });
});

/** Sends a request that the stand-in holds, reads the balance's pending charges meanwhile, then lets it finish. */
async function pendingDuring(t: TestApp, up: Awaited<ReturnType<typeof standIn>>, body: object): Promise<string> {
  const team = await createTeam(t.app, t.creds.adminToken);
  await topup(t.app, t.creds.adminToken, team.userId, 1_000_000);
  const owner = as(t.app, team.owner.apiKey);
  up.hold();
  const before = up.calls.length;
  const running = owner.post('/openai/v1/chat/completions', body);
  await until('the upstream got the request', () => up.calls.length > before);
  const pending = (await owner.get('/openapi/v1/billing/balance/detail')).body.pendingCharges;
  up.release();
  assert.equal((await running).status, 200);
  assert.equal((await owner.get('/openapi/v1/billing/balance/detail')).body.pendingCharges, '0', 'the reservation was settled');
  return pending;
}

test('the reservation held during a request is the exact count (an encoding, then a tokenizer.json) plus max_tokens', async () => {
  await withApp(async (t, admin, up, dir) => {
    const file = join(dir, 'tokenizer.json');
    writeFileSync(file, JSON.stringify(tinyTokenizerJson()));
    assert.equal((await admin.post('/admin/v1/models?check=off', model('acme/enc', [{ url: up.url, tokenizer: 'cl100k_base' }, { url: up.url, tokenizer: 'cl100k_base' }]))).status, 200);
    assert.equal((await admin.post('/admin/v1/models?check=off', model('acme/file', { url: up.url, tokenizer: file }))).status, 200);
    const content = 'Tell me about the rivers of Europe, briefly.';
    const messages = [{ role: 'system', content: 'You are terse.' }, { role: 'user', content }];
    const expected = countTokens('You are terse.') + countTokens(content) + 2 * TEMPLATE_TOKENS_PER_MESSAGE + TEMPLATE_TOKENS_PER_REPLY + 20;
    // 1 unit per token: the pending charge is the tokens reserved.
    assert.equal(await pendingDuring(t, up, { model: 'acme/enc', messages, max_tokens: 20 }), String(expected));
    // The tiny tokenizer.json makes "gantry", " gantry" and " token" one token each: 3 tokens.
    assert.equal(await pendingDuring(t, up, { model: 'acme/file', messages: [{ role: 'user', content: 'gantry token gantry' }], max_tokens: 7 }), String(3 + TEMPLATE_TOKENS_PER_MESSAGE + TEMPLATE_TOKENS_PER_REPLY + 7));
  });
});

test('the tokenizer setting is judged when the model is saved: 400 naming the field', async () => {
  await withApp(async (_t, admin, up, dir) => {
    const refused = async (upstream: unknown, field: string, rule: RegExp) => {
      const r = await admin.post('/admin/v1/models?check=off', model('acme/bad', upstream));
      assert.equal(r.status, 400, JSON.stringify(r.body));
      assert.equal(r.body.metadata.field, field, JSON.stringify(r.body));
      assert.match(r.body.message, rule);
    };
    await refused({ url: up.url, tokenizer: 'cl200k_base' }, 'upstream.tokenizer', /must be one of r50k_base, .*cl100k_base.*absolute path/);
    await refused({ url: up.url, tokenizer: 'models/tokenizer.json' }, 'upstream.tokenizer', /absolute path/);
    await refused({ url: up.url, tokenizer: join(dir, 'missing.json') }, 'upstream.tokenizer', /cannot read a tokenizer\.json/);
    const notJson = join(dir, 'not.json');
    writeFileSync(notJson, 'vocab: none');
    await refused({ url: up.url, tokenizer: notJson }, 'upstream.tokenizer', /cannot read a tokenizer\.json/);
    const noModel = join(dir, 'no-model.json');
    writeFileSync(noModel, JSON.stringify({ version: '1.0' }));
    await refused({ url: up.url, tokenizer: noModel }, 'upstream.tokenizer', /not a Hugging Face tokenizer\.json/);
    const badModel = join(dir, 'bad-model.json');
    writeFileSync(badModel, JSON.stringify({ model: { type: 'Nonsense', vocab: { a: 0 } } }));
    await refused({ url: up.url, tokenizer: badModel }, 'upstream.tokenizer', /not a tokenizer Gantry can run/);
    await refused([{ url: up.url, tokenizer: 'cl100k_base' }, { url: up.url, tokenizer: 'o200k_base' }], 'upstream[1].tokenizer', /same tokenizer \(cl100k_base\)/);
    await refused([{ url: up.url }, { url: up.url, tokenizer: 'o200k_base' }], 'upstream[0].tokenizer', /same tokenizer/);
  });
});

test('a tokenizer this host cannot load (saved by a replica with the file on its own disk) counts by the lower bound, said once in the log', async () => {
  const lines: string[] = [];
  const logStream = new Writable({
    write(chunk, _enc, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  await withApp(async (t, _admin, up, dir) => {
    // the row as another replica saved it: its file is not on this host
    const tokenizer = join(dir, 'elsewhere', 'tokenizer.json');
    await upsertModel(t.services.ctx.db, { id: 'acme/elsewhere', title: 'Elsewhere', contextSize: 256, inputPricePerMUnits: 1n, outputPricePerMUnits: 1n, status: 'available', upstream: { url: up.url, tokenizer }, createdAt: new Date(t.clock.nowMs()) });
    t.services.ctx.changes.publish({ type: 'catalogue.changed' });
    const u = as(t.app, t.creds.apiKey);
    const text = words(5000).slice(0, 30_000);
    for (let i = 0; i < 2; i++) {
      const r = await u.post('/openai/v1/chat/completions', { model: 'acme/elsewhere', messages: [{ role: 'user', content: text }] });
      assert.equal(r.status, 200, JSON.stringify(r.body)); // ⌈30,000 / 128⌉ = 235 could fit: the upstream judges it
    }
    assert.equal(up.calls.length, 2);
    const warned = lines.filter((l) => l.includes('tokenizer cannot be loaded here'));
    assert.equal(warned.length, 1, 'said once');
    assert.equal(JSON.parse(warned[0]!).tokenizer, tokenizer);
  }, logStream);
});

test('a prompt of 131,072 letters without a space is counted while /healthz answers at once, and it is admitted and billed', async () => {
  await withApp(async (t, admin, up) => {
    assert.equal((await admin.post('/admin/v1/models?check=off', { ...model('acme/long', { url: up.url, tokenizer: 'cl100k_base' }), contextSize: 1_000_000 })).status, 200);
    const team = await createTeam(t.app, t.creds.adminToken);
    await topup(t.app, t.creds.adminToken, team.userId, 1_000_000);
    const owner = as(t.app, team.owner.apiKey);
    // Counted before: 17 s holding the event loop, long enough for a client's timeout to end
    // the request, which its return then found gone and released: answered to no one, unbilled.
    let done = false;
    const chat = owner.post('/openai/v1/chat/completions', { model: 'acme/long', messages: [{ role: 'user', content: 'a'.repeat(131_072) }], max_tokens: 5 })
      .finally(() => { done = true; });
    const waits: number[] = [];
    while (!done) {
      // one probe and a turn of the event loop (inject answers in microtasks; a socket would wait for the loop)
      const t0 = performance.now();
      assert.equal((await t.app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200);
      await new Promise((r) => setImmediate(r));
      waits.push(performance.now() - t0);
    }
    const answer = await chat;
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.ok(waits.length > 0 && Math.max(...waits) < 1000, `/healthz waited ${Math.max(...waits).toFixed(0)} ms`);
    // billed: the upstream's usage (10 prompt tokens, 1 completion) at 1 unit a token
    const balance = (await owner.get('/openapi/v1/billing/balance/detail')).body;
    assert.equal(balance.availableBalance, String(1_000_000 - 11));
    assert.equal(balance.pendingCharges, '0');
  });
});
