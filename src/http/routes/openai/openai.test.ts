// The OpenAI-compatible routes through HTTP: catalogue filtering, shapes, streaming, errors
// and their order, rate limits, and metering visible in budgets, balance and bills.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { once } from 'node:events';
import { buildTestApp, type TestApp } from '../../../../test/helpers/app.ts';
import { as, type Res } from '../../../../test/helpers/http.ts';
import { createTeam, topup } from '../../../../test/helpers/factories.ts';

const FAST = { GANTRY_SIM_TTFT_MS: '0', GANTRY_SIM_TOKENS_PER_S: '1000000' };
const SMALL = 'gantry/sim-chat-small';
const LARGE = 'gantry/sim-chat-large';
const EMBED = 'gantry/sim-embed';
const chat = (model: string, extra: Record<string, unknown> = {}) => ({ model, messages: [{ role: 'user', content: 'Tell me about rivers and stones.' }], ...extra });

async function withApp(fn: (t: TestApp) => Promise<void>): Promise<void> {
  const t = await buildTestApp({ env: FAST });
  try {
    await fn(t);
  } finally {
    await t.close();
  }
}

function sse(body: string): { events: any[]; done: boolean } {
  const events: any[] = [];
  let done = false;
  for (const block of body.split('\n\n')) {
    const line = block.trim();
    if (!line) continue;
    assert.ok(line.startsWith('data: '), `SSE line: ${line}`);
    const data = line.slice(6);
    if (data === '[DONE]') done = true;
    else events.push(JSON.parse(data));
  }
  return { events, done };
}

async function post(t: TestApp, url: string, key: string, body: unknown) {
  const res = await t.app.inject({ method: 'POST', url, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, payload: JSON.stringify(body) });
  return res;
}

test('GET /models lists only what the key policy and the team allow, under every base alias', async () => {
  await withApp(async (t) => {
    const team = await createTeam(t.app, t.creds.adminToken);
    const admin = as(t.app, t.creds.adminToken);
    const owner = as(t.app, team.owner.apiKey);
    for (const base of ['/openai/v1', '/openai', '/v3/openai']) {
      const r = await owner.get(`${base}/models`);
      assert.equal(r.status, 200);
      assert.deepEqual(r.body.data.map((m: any) => m.id).sort(), [LARGE, SMALL, EMBED].sort());
    }
    const one = await owner.get(`/openai/v1/models/${SMALL}`);
    assert.equal(one.status, 200);
    assert.deepEqual(Object.keys(one.body).sort(), ['context_size', 'created', 'description', 'id', 'input_token_price_per_m', 'object', 'output_token_price_per_m', 'owned_by', 'title']);
    assert.equal(one.body.input_token_price_per_m, 1000);
    // The Developer's key may use only the small model; the team disables the embed model.
    const dev = team.members.Developer;
    const pol = await owner.put(`/openapi/v2/user/key/${dev.keyId}/model-access-policy`, { mode: 'selected', allowedModels: [{ type: 'llm', id: SMALL }] });
    assert.equal(pol.status, 200, JSON.stringify(pol.body));
    assert.equal((await admin.put(`/admin/v1/teams/${team.userId}/models`, { enabledModels: [SMALL, LARGE] })).status, 200);
    assert.deepEqual((await as(t.app, dev.apiKey).get('/openai/v1/models')).body.data.map((m: any) => m.id), [SMALL]);
    assert.deepEqual((await owner.get('/openai/v1/models')).body.data.map((m: any) => m.id).sort(), [LARGE, SMALL]);
    const hidden = await as(t.app, dev.apiKey).get(`/openai/v1/models/${LARGE}`);
    assert.equal(hidden.status, 404);
    assert.equal(hidden.body.reason, 'MODEL_NOT_FOUND');
    const denied = await as(t.app, dev.apiKey).post('/openai/v1/chat/completions', chat(LARGE));
    assert.equal(denied.status, 403);
    assert.equal(denied.body.reason, 'ACCESS_DENY');
    assert.match(denied.body.message, /gantry\/sim-chat-large/);
    assert.equal(denied.body.error.code, 'access_deny');
    const notEnabled = await owner.post('/openai/v1/embeddings', { model: EMBED, input: 'x' });
    assert.equal(notEnabled.status, 403);
    assert.match(notEnabled.body.message, /not enabled/);
  });
});

test('admission answers in order: auth, model, policy, body', async () => {
  await withApp(async (t) => {
    const team = await createTeam(t.app, t.creds.adminToken);
    const noAuth = await t.app.inject({ method: 'POST', url: '/openai/v1/chat/completions', payload: chat(SMALL) });
    assert.equal(noAuth.statusCode, 401);
    assert.equal(JSON.parse(noAuth.body).reason, 'INVALID_API_KEY');
    const u = as(t.app, team.owner.apiKey);
    const missing = await u.post('/openai/v1/chat/completions', chat('acme/nope'));
    assert.equal(missing.status, 404);
    assert.equal(missing.body.reason, 'MODEL_NOT_FOUND');
    assert.equal(missing.body.error.type, 'invalid_request_error');
    const bad = await u.post('/openai/v1/chat/completions', { model: SMALL, messages: [{ content: 'no role' }] });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.reason, 'INVALID_REQUEST_BODY');
    assert.equal(bad.body.metadata.field, 'messages.0.role');
    assert.equal(bad.body.error.param, 'messages.0.role');
    const badTokens = await u.post('/openai/v1/chat/completions', chat(SMALL, { max_tokens: 0 }));
    assert.equal(badTokens.status, 400);
    assert.equal(badTokens.body.metadata.field, 'max_tokens');
    const billing = await as(t.app, team.members.Billing.apiKey).post('/openai/v1/chat/completions', chat(SMALL));
    assert.equal(billing.status, 403); // the Billing role does not call models
    // An offline model is not found.
    const admin = as(t.app, t.creds.adminToken);
    const off = await admin.post('/admin/v1/models', { id: 'acme/offline', title: 'Off', contextSize: 100, inputTokenPricePerM: 1, outputTokenPricePerM: 1, status: 'offline', upstream: 'sim' });
    assert.equal(off.status, 200);
    assert.equal((await u.post('/openai/v1/chat/completions', chat('acme/offline'))).body.reason, 'MODEL_NOT_FOUND');
  });
});

test('chat, completions, embeddings and rerank answer in OpenAI shapes with exact usage, deterministically', async () => {
  await withApp(async (t) => {
    const u = as(t.app, t.creds.apiKey);
    const a = await u.post('/openai/v1/chat/completions', chat(SMALL, { max_tokens: 50 }));
    const b = await u.post('/openai/chat/completions', chat(SMALL, { max_tokens: 50 }));
    assert.equal(a.status, 200);
    assert.equal(a.body.object, 'chat.completion');
    assert.equal(a.body.model, SMALL);
    assert.equal(a.body.choices[0].message.role, 'assistant');
    assert.equal(a.body.choices[0].message.content, b.body.choices[0].message.content, 'same input, same output');
    assert.equal(a.body.usage.total_tokens, a.body.usage.prompt_tokens + a.body.usage.completion_tokens);
    assert.ok(a.body.usage.completion_tokens > 0 && a.body.usage.completion_tokens <= 50);
    assert.equal(a.headers['x-ratelimit-limit-requests'], '30'); // T1
    assert.equal(a.headers['x-ratelimit-limit-tokens'], '60000');
    assert.ok(Number(a.headers['x-ratelimit-remaining-requests']) < 30);
    assert.equal(a.headers['x-ratelimit-reset-requests'], '1m0s', 'the first request of a window frees its slot a minute later');
    const capped = await u.post('/openai/v1/chat/completions', chat(SMALL, { max_tokens: 3, ignore_eos: true }));
    assert.equal(capped.body.usage.completion_tokens, 3);
    assert.equal(capped.body.choices[0].finish_reason, 'length');
    const c = await u.post('/v3/openai/completions', { model: SMALL, prompt: ['one two', 'three'], max_tokens: 5, n: 2 });
    assert.equal(c.status, 200);
    assert.equal(c.body.object, 'text_completion');
    assert.equal(c.body.choices.length, 4);
    assert.equal(c.body.usage.prompt_tokens, 3);
    // Token-id prompts: one array is one prompt, an array of arrays is several; one token per id.
    const ids = await u.post('/openai/v1/completions', { model: SMALL, prompt: [101, 202, 303, 404], max_tokens: 5 });
    assert.equal(ids.status, 200, JSON.stringify(ids.body));
    assert.equal(ids.body.choices.length, 1);
    assert.equal(ids.body.usage.prompt_tokens, 4);
    const batch = await u.post('/openai/v1/completions', { model: SMALL, prompt: [[101, 202], [303]], max_tokens: 5, n: 2 });
    assert.equal(batch.status, 200, JSON.stringify(batch.body));
    assert.deepEqual(batch.body.choices.map((x: any) => x.index), [0, 1, 2, 3]);
    assert.equal(batch.body.usage.prompt_tokens, 3);
    const e = await u.post('/openai/v1/embeddings', { model: EMBED, input: ['river stone', 'river stone', 'paper'] });
    assert.equal(e.status, 200);
    assert.equal(e.body.data.length, 3);
    assert.deepEqual(e.body.data[0].embedding, e.body.data[1].embedding);
    assert.notDeepEqual(e.body.data[0].embedding, e.body.data[2].embedding);
    assert.equal(e.body.usage.prompt_tokens, 5);
    // the seeded embedding model has both limits, so its answers carry both header families
    assert.equal(e.headers['x-ratelimit-limit-requests'], '30');
    assert.equal(e.headers['x-ratelimit-limit-tokens'], '60000');
    const b64 = await u.post('/openai/v1/embeddings', { model: EMBED, input: 'river stone', encoding_format: 'base64', dimensions: 8 });
    const floats = new Float32Array(new Uint8Array(Buffer.from(b64.body.data[0].embedding, 'base64')).buffer);
    assert.equal(floats.length, 8);
    const r = await u.post('/openai/v1/rerank', { model: EMBED, query: 'river stone', documents: ['paper music', { text: 'a river of stone' }, 'quiet'], top_n: 2 });
    assert.equal(r.status, 200);
    assert.equal(r.body.results.length, 2);
    assert.equal(r.body.results[0].index, 1);
    assert.equal(r.body.results[0].document.text, 'a river of stone');
    assert.ok(r.body.results[0].relevance_score >= r.body.results[1].relevance_score);
    assert.ok(r.body.usage.total_tokens > 0);
  });
});

test('streaming: SSE chunks, a usage chunk on request, [DONE] last, billed exactly like the usage says', async () => {
  await withApp(async (t) => {
    const team = await createTeam(t.app, t.creds.adminToken);
    await topup(t.app, t.creds.adminToken, team.userId, 100000);
    const res = await post(t, '/openai/v1/chat/completions', team.owner.apiKey, chat(LARGE, { stream: true, stream_options: { include_usage: true }, max_tokens: 40, ignore_eos: true }));
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /text\/event-stream/);
    assert.ok(res.headers['x-ratelimit-remaining-requests']);
    const { events, done } = sse(res.body);
    assert.ok(done, 'ends with data: [DONE]');
    assert.ok(res.body.trimEnd().endsWith('data: [DONE]'));
    assert.equal(events[0].choices[0].delta.role, 'assistant');
    const usage = events.at(-1).usage;
    assert.deepEqual(events.at(-1).choices, []);
    assert.equal(usage.completion_tokens, 40);
    const text = events.filter((e) => e.choices.length).map((e) => e.choices[0].delta.content ?? '').join('');
    const nonStream = await as(t.app, team.owner.apiKey).post('/openai/v1/chat/completions', chat(LARGE, { max_tokens: 40, ignore_eos: true }));
    assert.equal(text, nonStream.body.choices[0].message.content, 'the stream carries the same text');
    const noUsage = await post(t, '/openai/v1/completions', team.owner.apiKey, { model: SMALL, prompt: 'hi', stream: true });
    const parsed = sse(noUsage.body);
    assert.ok(parsed.done);
    assert.ok(parsed.events.every((e) => !e.usage), 'no usage chunk unless asked');
    assert.equal(parsed.events[0].object, 'text_completion');
    // Metering: two LARGE requests of 40 output tokens each, at 5000/15000 units per M.
    const expectMicro = BigInt(usage.prompt_tokens) * 5000n + 40n * 15000n;
    const bills = await as(t.app, team.owner.apiKey).get('/openapi/v1/billing/apikey/bill/list', {
      cycleType: 'Day', category: 'llm', startTime: Math.floor(t.clock.nowMs() / 1000) - 3600, endTime: Math.floor(t.clock.nowMs() / 1000) + 60,
    });
    assert.equal(bills.status, 200, JSON.stringify(bills.body));
    const large = bills.body.bills.find((b: any) => b.productName === LARGE);
    assert.ok(large, JSON.stringify(bills.body));
    assert.equal(large.ownerID, team.owner.keyId);
    assert.equal(large.billingMethod, 7);
    assert.equal(large.category, 'llm');
    assert.equal(large.billNum1, '80');
    assert.equal(large.basePrice0, '5000');
    assert.equal(large.basePrice1, '15000');
    assert.equal(BigInt(large.billNum0), 2n * BigInt(usage.prompt_tokens));
    assert.equal(large.amount, String((2n * expectMicro + 500000n) / 1000000n));
  });
});

test('rate limits: RPM and TPM refuse with 429, Retry-After and x-ratelimit headers; the window slides with the clock', async () => {
  await withApp(async (t) => {
    const team = await createTeam(t.app, t.creds.adminToken);
    await topup(t.app, t.creds.adminToken, team.userId, 100000);
    const admin = as(t.app, t.creds.adminToken);
    assert.equal((await admin.put(`/admin/v1/teams/${team.userId}/quotas`, { model: SMALL, quotaType: 'RPM', currentQuota: 3 })).status, 200);
    const u = as(t.app, team.owner.apiKey);
    const statuses: Res[] = [];
    for (let i = 0; i < 4; i++) statuses.push(await u.post('/openai/v1/chat/completions', chat(SMALL, { max_tokens: 5 })));
    assert.deepEqual(statuses.map((r) => r.status), [200, 200, 200, 429]);
    const refused = statuses[3]!;
    assert.equal(refused.body.reason, 'RATE_LIMIT_EXCEEDED');
    assert.equal(refused.body.error.type, 'rate_limit_error');
    assert.equal(refused.headers['x-ratelimit-limit-requests'], '3');
    assert.equal(refused.headers['x-ratelimit-remaining-requests'], '0');
    assert.ok(Number(refused.headers['retry-after']) >= 1 && Number(refused.headers['retry-after']) <= 60);
    t.clock.advance(61_000);
    assert.equal((await u.post('/openai/v1/chat/completions', chat(SMALL, { max_tokens: 5 }))).status, 200, 'a minute later the window has room');
    // TPM counts prompt estimate + max_tokens up front.
    assert.equal((await admin.put(`/admin/v1/teams/${team.userId}/quotas`, { model: LARGE, quotaType: 'TPM', currentQuota: 1000 })).status, 200);
    const big = await u.post('/openai/v1/chat/completions', chat(LARGE, { max_tokens: 1001 }));
    assert.equal(big.status, 429);
    assert.equal(big.body.reason, 'TOKEN_LIMIT_EXCEEDED');
    assert.equal(big.headers['x-ratelimit-limit-tokens'], '1000');
    // After a request settles, only its real tokens stay counted: room for more.
    const first = await u.post('/openai/v1/chat/completions', chat(LARGE, { max_tokens: 900 }));
    assert.equal(first.status, 200, JSON.stringify(first.body));
    const second = await u.post('/openai/v1/chat/completions', chat(LARGE, { max_tokens: 900 }));
    assert.equal(second.status, 200, 'the unused part of the first request was refunded');
  });
});

test('budgets: refusal names the scope and what remains; usage shows at once in used, balance and bills', async () => {
  await withApp(async (t) => {
    const team = await createTeam(t.app, t.creds.adminToken);
    const admin = as(t.app, t.creds.adminToken);
    // 1 unit per token in and out, so amounts are easy to follow.
    const pricey = await admin.post('/admin/v1/models', { id: 'acme/pricey', title: 'Pricey', contextSize: 100000, inputTokenPricePerM: 1000000, outputTokenPricePerM: 1000000, status: 'available', upstream: 'sim' });
    assert.equal(pricey.status, 200, JSON.stringify(pricey.body));
    await topup(t.app, t.creds.adminToken, team.userId, 20000);
    const owner = as(t.app, team.owner.apiKey);
    const dev = team.members.Developer;
    const setBudget = await owner.put('/openapi/v1/user/team/key-budget', { member_id: dev.memberId, key_id: dev.keyId, budget_type: 'One-time', budget_limit: 10000 });
    assert.equal(setBudget.status, 200, JSON.stringify(setBudget.body));
    const d = as(t.app, dev.apiKey);
    const tooBig = await d.post('/openai/v1/chat/completions', chat('acme/pricey', { max_tokens: 10000 }));
    assert.equal(tooBig.status, 403);
    assert.equal(tooBig.body.reason, 'BUDGET_EXCEEDED');
    assert.equal(tooBig.body.metadata.scope, 'key');
    assert.equal(tooBig.body.metadata.keyId, dev.keyId);
    assert.equal(tooBig.body.metadata.remaining, 10000);
    assert.ok(tooBig.body.metadata.required > 10000);
    const ok = await d.post('/openai/v1/chat/completions', chat('acme/pricey', { max_tokens: 5000, ignore_eos: true }));
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    const cost = ok.body.usage.prompt_tokens + 5000;
    const budgets = await owner.get('/openapi/v1/user/team/key-budget-list', { member_id: dev.memberId });
    const kb = budgets.body.key_budgets.find((k: any) => k.key_id === dev.keyId);
    assert.equal(kb.used, cost, 'used reflects the request at once');
    assert.equal(kb.remaining, 10000 - cost);
    const bal = await owner.get('/openapi/v1/billing/balance/detail');
    assert.equal(bal.body.pendingCharges, '0', 'nothing in flight');
    assert.equal(bal.body.availableBalance, String(20000 - cost));
    // An operator charge to the key is reflected in the gateway's budget state at once.
    const charged = await admin.post(`/admin/v1/teams/${team.userId}/charges`, {
      amount: 10000 - cost - 10, category: 'gpu', billingMethod: 1, productId: 'p', productName: 'P', keyId: dev.keyId, idempotencyKey: 'op-1',
    });
    assert.equal(charged.status, 200, JSON.stringify(charged.body));
    const after = await d.post('/openai/v1/chat/completions', chat('acme/pricey', { max_tokens: 100 }));
    assert.equal(after.status, 403, 'the operator charge left less than the worst case');
    assert.equal(after.body.reason, 'BUDGET_EXCEEDED');
    assert.equal(after.body.metadata.remaining, 10);
    // Raising the budget is reflected at once too.
    await owner.put('/openapi/v1/user/team/key-budget', { member_id: dev.memberId, key_id: dev.keyId, budget_type: 'One-time', budget_limit: 40000 });
    assert.equal((await d.post('/openai/v1/chat/completions', chat('acme/pricey', { max_tokens: 100 }))).status, 200);
    // A member budget applies to all the member's keys.
    await owner.put('/openapi/v1/user/team/budget', { member_id: dev.memberId, budget_type: 'One-time', budget_limit: 10000 });
    const member = await d.post('/openai/v1/chat/completions', chat('acme/pricey', { max_tokens: 9990 }));
    assert.equal(member.status, 403);
    assert.equal(member.body.metadata.scope, 'member');
    // The account balance: a new team has nothing to spend until it tops up.
    const poor = await createTeam(t.app, t.creds.adminToken);
    const broke = await as(t.app, poor.owner.apiKey).post('/openai/v1/chat/completions', chat(SMALL, { max_tokens: 10 }));
    assert.equal(broke.status, 403);
    assert.equal(broke.body.reason, 'NOT_ENOUGH_BALANCE');
    assert.equal(broke.body.metadata.scope, 'balance');
    assert.equal(broke.body.metadata.remaining, 0);
    assert.equal(broke.headers['x-ratelimit-limit-requests'], '30', 'rate headers on refusals too');
    await topup(t.app, t.creds.adminToken, poor.userId, 10);
    assert.equal((await as(t.app, poor.owner.apiKey).post('/openai/v1/chat/completions', chat(SMALL, { max_tokens: 10 }))).status, 200, 'a top-up is reflected at once');
  });
});

test('a revoked key stops working within 1 s', async () => {
  await withApp(async (t) => {
    const team = await createTeam(t.app, t.creds.adminToken);
    await topup(t.app, t.creds.adminToken, team.userId, 1000);
    const dev = as(t.app, team.members.Developer.apiKey);
    assert.equal((await dev.post('/openai/v1/chat/completions', chat(SMALL, { max_tokens: 5 }))).status, 200);
    assert.equal((await as(t.app, t.creds.adminToken).post(`/admin/v1/keys/${team.members.Developer.keyId}/revoke`)).status, 200);
    const r = await dev.post('/openai/v1/chat/completions', chat(SMALL, { max_tokens: 5 }));
    assert.equal(r.status, 401);
    assert.equal(r.body.reason, 'INVALID_API_KEY');
  });
});

test("an upstream's answer reaches the client byte for byte but for the model id: extra fields, nulls and key order kept", async () => {
  // What OpenAI-compatible servers add beyond the documented shapes. The routes document their
  // answers in /openapi.json only; a response schema would make Fastify drop or coerce these.
  const answers: Record<string, Record<string, unknown>> = {
    '/v1/chat/completions': {
      id: 'chatcmpl-x', object: 'chat.completion', created: 1, model: 'upstream-name', service_tier: 'default', system_fingerprint: 'fp_1',
      usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7, prompt_tokens_details: { cached_tokens: 0 } },
      choices: [{ index: 0, message: { role: 'assistant', content: 'Héllo', refusal: null, annotations: [], tool_calls: null }, logprobs: null, finish_reason: 'stop', stop_reason: null }],
      prompt_logprobs: null, kv_transfer_params: { remote: true },
    },
    '/v1/completions': {
      id: 'cmpl-x', object: 'text_completion', created: '1', model: 'upstream-name', system_fingerprint: null,
      choices: [{ index: 0, text: 'hi', logprobs: null, finish_reason: null }], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
    },
    '/v1/embeddings': { object: 'list', model: 'upstream-name', data: [{ object: 'embedding', index: 0, embedding: [0.5, -1e-7] }], usage: { prompt_tokens: 1, total_tokens: 1 }, id: 'embd-x' },
    '/v1/rerank': { id: 'rr-x', model: 'upstream-name', results: [{ index: 0, document: { text: 'a' }, relevance_score: 0.25, extra: 1 }], usage: { prompt_tokens: 3, total_tokens: 3 }, meta: { took_ms: 4 } },
  };
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answers[req.url!])));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const t = await buildTestApp({ env: FAST });
  try {
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/v1`;
    const upsert = await as(t.app, t.creds.adminToken).post('/admin/v1/models', {
      id: 'acme/passthrough', title: 'Pass', contextSize: 8192, inputTokenPricePerM: 1, outputTokenPricePerM: 1, status: 'available', upstream: [{ url, model: 'upstream-name' }],
    });
    assert.equal(upsert.status, 200, JSON.stringify(upsert.body));
    const team = await createTeam(t.app, t.creds.adminToken);
    await topup(t.app, t.creds.adminToken, team.userId, 100000);
    const requests: Array<[string, Record<string, unknown>]> = [
      ['/chat/completions', { messages: [{ role: 'user', content: 'hi' }], max_tokens: 5 }],
      ['/completions', { prompt: 'hi', max_tokens: 5 }],
      ['/embeddings', { input: 'hi' }],
      ['/rerank', { query: 'q', documents: ['a'] }],
    ];
    for (const [path, body] of requests) {
      const res = await post(t, `/openai/v1${path}`, team.owner.apiKey, { model: 'acme/passthrough', ...body });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.body, JSON.stringify({ ...answers[`/v1${path}`], model: 'acme/passthrough' }), path);
    }
  } finally {
    await t.close();
    server.close();
  }
});
