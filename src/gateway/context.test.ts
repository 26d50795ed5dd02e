// The context rule through HTTP: prompt + max output beyond a model's context_size is 400
// INVALID_REQUEST_BODY in OpenAI's words, before any upstream call and before rate limits and
// budgets count it; exactly at the limit is served. Simulator models are judged with the
// simulator's exact count; HTTP upstreams with a lower bound that never refuses what could fit.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage } from 'node:http';
import { once } from 'node:events';
import OpenAI from 'openai';
import { buildTestApp, type TestApp } from '../../test/helpers/app.ts';
import { as } from '../../test/helpers/http.ts';
import { createTeam, topup } from '../../test/helpers/factories.ts';
import { simTokenCount } from './tokens.ts';
import { checkContext, measurePrompts } from './context.ts';

const FAST = { GANTRY_SIM_TTFT_MS: '0', GANTRY_SIM_TOKENS_PER_S: '1000000' };
const TINY = 'acme/tiny'; // 256-token context, simulator
const WORDS = 'light river stone garden window market signal system number letter music paper orange silver quiet rapid'.split(' ');
const words = (n: number, from = 0) => Array.from({ length: n }, (_, i) => WORDS[(i + from) % WORDS.length]).join(' ');
const userMsg = (content: string) => [{ role: 'user', content }];

async function withApp(fn: (t: TestApp, admin: ReturnType<typeof as>) => Promise<void>): Promise<void> {
  const t = await buildTestApp({ env: FAST });
  try {
    const admin = as(t.app, t.creds.adminToken);
    const tiny = await admin.post('/admin/v1/models?check=off', { id: TINY, title: 'Tiny', contextSize: 256, inputTokenPricePerM: 100, outputTokenPricePerM: 100, status: 'available', upstream: 'sim' });
    assert.equal(tiny.status, 200, JSON.stringify(tiny.body));
    await fn(t, admin);
  } finally {
    await t.close();
  }
}

async function usageEvents(admin: ReturnType<typeof as>, userId: string): Promise<number> {
  const r = await admin.get(`/admin/v1/teams/${userId}/usage`);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.events;
}

test('chat on a simulator model: a 5,000-word prompt, max_tokens above the context, and prompt + max_tokens over it are 400; exactly the context is served', async () => {
  await withApp(async (t, admin) => {
    const team = await createTeam(t.app, t.creds.adminToken);
    await topup(t.app, t.creds.adminToken, team.userId, 100000);
    const u = as(t.app, team.owner.apiKey);

    const long = await u.post('/openai/v1/chat/completions', { model: TINY, messages: userMsg(words(5000)) });
    assert.equal(long.status, 400, JSON.stringify(long.body));
    assert.equal(long.body.reason, 'INVALID_REQUEST_BODY');
    const promptTokens = 3 + 3 + 5000; // the simulator's count: 5000 words, 3 per message, 3 to prime the reply
    assert.equal(long.body.message, `This model's maximum context length is 256 tokens. However, your messages resulted in ${promptTokens} tokens. Please reduce the length of the messages.`);
    assert.equal(long.body.metadata.field, 'messages');
    assert.equal(long.body.metadata.promptTokens, promptTokens);
    assert.equal(long.body.error.code, 'context_length_exceeded', 'the code OpenAI gives it, which agent frameworks look for');
    assert.equal(long.body.error.param, 'messages');
    assert.equal(long.body.metadata.contextSize, 256);
    assert.equal(long.body.metadata.exact, true);
    assert.equal(long.body.error.param, 'messages');
    assert.equal(long.body.error.type, 'invalid_request_error');

    for (const field of ['max_tokens', 'max_completion_tokens']) {
      const big = await u.post('/openai/v1/chat/completions', { model: TINY, messages: userMsg('hi'), [field]: 300 });
      assert.equal(big.status, 400, JSON.stringify(big.body));
      assert.equal(big.body.metadata.field, field);
      assert.equal(big.body.message, `${field} is too large: 300. This model's maximum context length is 256 tokens.`);
    }

    // The exact boundary: P prompt tokens + (256 − P) is served, one more is not.
    const msgs = userMsg(words(100));
    const P = 3 + 3 + 100;
    const fits = await u.post('/openai/v1/chat/completions', { model: TINY, messages: msgs, max_tokens: 256 - P, n: 3, ignore_eos: true });
    assert.equal(fits.status, 200, JSON.stringify(fits.body));
    assert.equal(fits.body.usage.prompt_tokens, P, 'the gateway counted what the simulator bills');
    assert.equal(fits.body.choices.length, 3, 'max output is per choice: n does not multiply it');
    assert.equal(fits.body.usage.completion_tokens, 3 * (256 - P));
    const over = await u.post('/openai/v1/chat/completions', { model: TINY, messages: msgs, max_tokens: 257 - P });
    assert.equal(over.status, 400);
    assert.equal(over.body.message, `This model's maximum context length is 256 tokens. However, you requested 257 tokens (${P} in the messages, ${257 - P} in the completion). Please reduce the length of the messages or completion.`);
    assert.equal(over.body.metadata.field, 'messages');
    assert.equal(over.body.metadata.completionTokens, 257 - P);
    // A stream is refused the same way, before any event.
    const stream = await t.app.inject({ method: 'POST', url: '/openai/v1/chat/completions', headers: { authorization: `Bearer ${team.owner.apiKey}`, 'content-type': 'application/json' }, payload: { model: TINY, messages: msgs, max_tokens: 257 - P, stream: true } });
    assert.equal(stream.statusCode, 400);
    assert.match(String(stream.headers['content-type']), /application\/json/);
    assert.equal(await usageEvents(admin, team.userId), 1, 'only the request that fit was billed');
  });
});

test('completions judge each prompt; token-id prompts count one token per id; embeddings each input; rerank the query with each document', async () => {
  await withApp(async (t, admin) => {
    const u = as(t.app, t.creds.apiKey);
    const embed = await admin.post('/admin/v1/models?check=off', { id: 'acme/tiny-embed', title: 'Tiny embed', contextSize: 16, inputTokenPricePerM: 1, outputTokenPricePerM: 0, status: 'available', upstream: 'sim' });
    assert.equal(embed.status, 200);

    const two = await u.post('/openai/v1/completions', { model: TINY, prompt: ['short one', words(250)], max_tokens: 10 });
    assert.equal(two.status, 400, JSON.stringify(two.body));
    assert.equal(two.body.metadata.field, 'prompt');
    assert.equal(two.body.metadata.index, 1);
    assert.equal(two.body.message, 'This model\'s maximum context length is 256 tokens. However, you requested 260 tokens (250 in prompt 1, 10 in the completion). Please reduce the length of the prompt or completion.');
    // Each prompt alone: two prompts of 200 tokens with 50 each fit a 256 context (450 in all).
    const both = await u.post('/openai/v1/completions', { model: TINY, prompt: [words(200), words(200, 3)], max_tokens: 50, ignore_eos: true });
    assert.equal(both.status, 200, JSON.stringify(both.body));
    assert.equal(both.body.usage.prompt_tokens, 400);
    // The legacy default of 16 output tokens counts too.
    const byDefault = await u.post('/openai/v1/completions', { model: TINY, prompt: words(241) });
    assert.equal(byDefault.status, 400);
    assert.match(byDefault.body.message, /you requested 257 tokens \(241 in the prompt, 16 in the completion\)/);
    const ids = await u.post('/openai/v1/completions', { model: TINY, prompt: Array.from({ length: 250 }, (_, i) => i + 1), max_tokens: 7 });
    assert.equal(ids.status, 400);
    assert.match(ids.body.message, /you requested 257 tokens \(250 in the prompt, 7 in the completion\)/);
    const idsFit = await u.post('/openai/v1/completions', { model: TINY, prompt: Array.from({ length: 250 }, (_, i) => i + 1), max_tokens: 6 });
    assert.equal(idsFit.status, 200, JSON.stringify(idsFit.body));

    const e = await u.post('/openai/v1/embeddings', { model: 'acme/tiny-embed', input: ['river stone', words(17)] });
    assert.equal(e.status, 400, JSON.stringify(e.body));
    assert.equal(e.body.metadata.field, 'input');
    assert.equal(e.body.metadata.index, 1);
    assert.equal(e.body.message, 'This model\'s maximum context length is 16 tokens. However, input 1 has 17 tokens. Please reduce the length of the input.');
    assert.equal((await u.post('/openai/v1/embeddings', { model: 'acme/tiny-embed', input: [words(16), words(16, 1)] })).status, 200);

    const r = await u.post('/openai/v1/rerank', { model: 'acme/tiny-embed', query: words(6), documents: ['paper', words(11)] });
    assert.equal(r.status, 400, JSON.stringify(r.body));
    assert.equal(r.body.metadata.field, 'documents');
    assert.equal(r.body.metadata.index, 1);
    assert.match(r.body.message, /the query and document 1 have 17 tokens together/);
    assert.equal((await u.post('/openai/v1/rerank', { model: 'acme/tiny-embed', query: words(6), documents: ['paper', words(10)] })).status, 200);
    const q = await u.post('/openai/v1/rerank', { model: 'acme/tiny-embed', query: words(17), documents: ['paper'] });
    assert.equal(q.body.metadata.field, 'query');
  });
});

test('the rule comes after model and access checks and before rate limits: a refused request uses no RPM', async () => {
  await withApp(async (t, admin) => {
    const team = await createTeam(t.app, t.creds.adminToken);
    await topup(t.app, t.creds.adminToken, team.userId, 100000);
    const u = as(t.app, team.owner.apiKey);
    const huge = userMsg(words(3000));
    assert.equal((await u.post('/openai/v1/chat/completions', { model: 'acme/nope', messages: huge })).body.reason, 'MODEL_NOT_FOUND');
    const dev = team.members.Developer;
    assert.equal((await u.put(`/openapi/v2/user/key/${dev.keyId}/model-access-policy`, { mode: 'selected', allowedModels: [{ type: 'llm', id: 'gantry/sim-chat-small' }] })).status, 200);
    assert.equal((await as(t.app, dev.apiKey).post('/openai/v1/chat/completions', { model: TINY, messages: huge })).body.reason, 'ACCESS_DENY');
    const tiers = { T1: '2', T2: '2', T3: '2', T4: '2', T5: '2' };
    assert.equal((await admin.post('/admin/v1/quotas', { model: TINY, modal: 'llm', quotaType: 'RPM', productType: 'Public Endpoint', defaultQuota: '2', tiers, adjustable: true })).status, 200);
    for (let i = 0; i < 3; i++) assert.equal((await u.post('/openai/v1/chat/completions', { model: TINY, messages: huge })).status, 400);
    assert.equal((await u.post('/openai/v1/chat/completions', { model: TINY, messages: userMsg('hi'), max_tokens: 5 })).status, 200);
    assert.equal((await u.post('/openai/v1/chat/completions', { model: TINY, messages: userMsg('hi'), max_tokens: 5 })).status, 200);
    assert.equal((await u.post('/openai/v1/chat/completions', { model: TINY, messages: userMsg('hi'), max_tokens: 5 })).status, 429);
  });
});

test('an HTTP upstream: only what no tokenizer could fit is refused here (⌈bytes / 128⌉), never reaching it; the rest is its to judge', async () => {
  const seen: number[] = [];
  const upstream = createServer(async (req: IncomingMessage, res) => {
    let body = '';
    for await (const c of req) body += c;
    seen.push(body.length);
    const parsed = JSON.parse(body);
    const text = parsed.messages.map((m: { content: string }) => m.content).join(' ');
    const prompt = simTokenCount(text);
    if (prompt + (parsed.max_tokens ?? 0) > 256) {
      // vLLM's refusal of a request longer than the model
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'error', message: `This model's maximum context length is 256 tokens. However, you requested ${prompt + parsed.max_tokens} tokens in the messages, Please reduce the length of the messages.`, type: 'BadRequestError', param: null, code: 400 }));
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ id: 'x', object: 'chat.completion', created: 1, model: 'up', choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }], usage: { prompt_tokens: prompt, completion_tokens: 1, total_tokens: prompt + 1 } }));
  });
  upstream.listen(0, '127.0.0.1');
  await once(upstream, 'listening');
  const url = `http://127.0.0.1:${(upstream.address() as { port: number }).port}/v1`;
  try {
    await withApp(async (t, admin) => {
      assert.equal((await admin.post('/admin/v1/models?check=off', { id: 'acme/remote', title: 'Remote', contextSize: 256, inputTokenPricePerM: 1, outputTokenPricePerM: 1, status: 'available', upstream: { url, model: 'up' } })).status, 200);
      const u = as(t.app, t.creds.apiKey);
      // 40,000 bytes of text: at least 313 tokens under any tokenizer.
      const huge = await u.post('/openai/v1/chat/completions', { model: 'acme/remote', messages: userMsg('x'.repeat(40_000)) });
      assert.equal(huge.status, 400, JSON.stringify(huge.body));
      assert.equal(huge.body.message, 'This model\'s maximum context length is 256 tokens. However, your messages resulted in at least 313 tokens. Please reduce the length of the messages.');
      assert.equal(huge.body.metadata.exact, false);
      const tooMuchOut = await u.post('/openai/v1/chat/completions', { model: 'acme/remote', messages: userMsg('hi'), max_tokens: 1000 });
      assert.equal(tooMuchOut.status, 400);
      assert.equal(tooMuchOut.body.metadata.field, 'max_tokens');
      assert.deepEqual(seen, [], 'neither reached the upstream');
      // 4,000 words (≈ 25 KB) could be 200 tokens for some tokenizer: the upstream judges it, and its 400 is the client's.
      const text = words(4000);
      assert.ok(Math.ceil(Buffer.byteLength(text) / 128) + 16 <= 256);
      const words4k = await u.post('/openai/v1/chat/completions', { model: 'acme/remote', messages: userMsg(text), max_tokens: 16 });
      assert.equal(words4k.status, 400, JSON.stringify(words4k.body));
      assert.equal(words4k.body.reason, 'INVALID_REQUEST_BODY');
      assert.match(words4k.body.message, /maximum context length is 256 tokens/);
      assert.equal(seen.length, 1);
      const ok = await u.post('/openai/v1/chat/completions', { model: 'acme/remote', messages: userMsg('hello there'), max_tokens: 16 });
      assert.equal(ok.status, 200, JSON.stringify(ok.body));
    });
  } finally {
    upstream.close();
  }
});

test('the official openai package reads the refusal as a BadRequestError with OpenAI\'s message, and normal requests still work', async () => {
  await withApp(async (t) => {
    const address = await t.app.listen({ host: '127.0.0.1', port: 0 });
    const client = new OpenAI({ apiKey: t.creds.apiKey, baseURL: `${address}/openai/v1`, maxRetries: 0 });
    await assert.rejects(client.chat.completions.create({ model: TINY, messages: [{ role: 'user', content: words(5000) }] }), (e: unknown) => {
      assert.ok(e instanceof OpenAI.BadRequestError);
      assert.equal(e.status, 400);
      assert.match(e.message, /This model's maximum context length is 256 tokens\. However, your messages resulted in 5006 tokens\./);
      assert.equal(e.param, 'messages');
      return true;
    });
    await assert.rejects(client.chat.completions.create({ model: TINY, messages: [{ role: 'user', content: 'hi' }], max_tokens: 4096, stream: true }), (e: unknown) => {
      assert.ok(e instanceof OpenAI.BadRequestError);
      assert.equal(e.param, 'max_tokens');
      return true;
    });
    const done = await client.chat.completions.create({ model: TINY, messages: [{ role: 'user', content: words(50) }], max_tokens: 20 });
    assert.equal(done.usage!.prompt_tokens, 56);
    const stream = await client.chat.completions.create({ model: TINY, messages: [{ role: 'user', content: words(50) }], max_tokens: 20, stream: true });
    let text = '';
    for await (const c of stream) text += c.choices[0]?.delta?.content ?? '';
    assert.equal(text, done.choices[0]!.message.content);
  });
});

test('lower bounds never over-refuse: a rerank pair is bounded over its bytes together', async () => {
  const body = { query: 'q'.repeat(64), documents: ['d'.repeat(64), 'e'.repeat(65)] };
  const measured = await measurePrompts('rerank', body, 'bound');
  assert.deepEqual(measured.counts, [1, 1, 1]);
  assert.equal(measured.exact, false);
  // 64 + 64 bytes could be one token; 64 + 65 bytes are at least two.
  assert.throws(() => checkContext('rerank', body, measured, 1), (e: any) => e.metadata.index === 1 && /at least 2 tokens together/.test(e.message));
  checkContext('rerank', { ...body, documents: [body.documents[0]] }, await measurePrompts('rerank', { ...body, documents: [body.documents[0]] }, 'bound'), 1);
  // the simulator's exact count: two words are two tokens
  const exact = await measurePrompts('chat.completions', { messages: [{ role: 'user', content: 'two words' }] }, 'simulator');
  assert.deepEqual(exact, { counts: [3 + 3 + 2], exact: true, simulator: true });
});
