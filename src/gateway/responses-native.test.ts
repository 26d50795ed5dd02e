// A model whose upstream speaks the Responses API itself (`responses: true`): the official
// `openai` package's requests reach it as sent (only the model name mapped), its answers
// and stream events come back as they are, billed from its usage (cached tokens at the
// cached price), stored for GET and continued by previous_response_id; a model without the
// flag still gets chat completions.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage } from 'node:http';
import { once } from 'node:events';
import OpenAI from 'openai';
import { buildTestApp } from '../../test/helpers/app.ts';
import { as } from '../../test/helpers/http.ts';
import { createTeam, topup } from '../../test/helpers/factories.ts';

async function readJson(req: IncomingMessage): Promise<any> {
  let s = '';
  for await (const c of req) s += c;
  return JSON.parse(s);
}

const USAGE = { input_tokens: 30, input_tokens_details: { cached_tokens: 10 }, output_tokens: 6, output_tokens_details: { reasoning_tokens: 2 }, total_tokens: 36 };

function responseObject(id: string, model: string, previous: string | null) {
  return {
    id, object: 'response', created_at: 1_700_000_000, status: 'completed', model, previous_response_id: previous,
    output: [{ id: `msg_${id}`, type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Rivers flow.', annotations: [] }] }],
    usage: USAGE, upstream_extra: { kept: true },
  };
}

test('a Responses-speaking upstream gets the request as sent and its answer comes back as it is, billed and stored', async () => {
  const seen: Array<{ path: string; body: any }> = [];
  let n = 0;
  const upstream = createServer(async (req, res) => {
    const body = await readJson(req);
    seen.push({ path: req.url!, body });
    if (req.url !== '/v1/responses') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({
        id: 'c1', object: 'chat.completion', created: 1, model: body.model,
        choices: [{ index: 0, message: { role: 'assistant', content: 'chat answer', refusal: null }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 30, completion_tokens: 6, total_tokens: 36 },
      }));
      return;
    }
    // 'dup' answers with an id already stored: the store fails after the call was billed
    const obj = responseObject(body.input === 'dup' ? 'resp_up1' : `resp_up${++n}`, body.model, body.previous_response_id ?? null);
    if (!body.stream) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(obj));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const events = [
      { type: 'response.created', sequence_number: 0, response: { ...obj, status: 'in_progress', output: [], usage: null } },
      { type: 'response.output_text.delta', sequence_number: 1, item_id: `msg_${obj.id}`, output_index: 0, content_index: 0, delta: 'Rivers', logprobs: [] },
      { type: 'response.output_text.delta', sequence_number: 2, item_id: `msg_${obj.id}`, output_index: 0, content_index: 0, delta: ' flow.', logprobs: [] },
      { type: 'response.completed', sequence_number: 3, response: obj },
    ];
    for (const e of events) res.write(`event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`);
    res.end();
  });
  upstream.listen(0, '127.0.0.1');
  await once(upstream, 'listening');
  const url = `http://127.0.0.1:${(upstream.address() as { port: number }).port}/v1`;
  const t = await buildTestApp();
  try {
    const admin = as(t.app, t.creds.adminToken);
    // per token: input 4 units, cached 1, output 10
    const prices = { contextSize: 8192, inputTokenPricePerM: 4_000_000, outputTokenPricePerM: 10_000_000, cachedInputTokenPricePerM: 1_000_000, status: 'available' };
    const m = await admin.post('/admin/v1/models?check=off', { id: 'acme/native', title: 'Native', ...prices, upstream: { url, model: 'up-model', responses: true } });
    assert.equal(m.status, 200, JSON.stringify(m.body));
    assert.deepEqual(m.body.upstream, { url, model: 'up-model', responses: true });
    assert.equal((await admin.post('/admin/v1/models?check=off', { id: 'acme/chat', title: 'Chat', ...prices, upstream: { url } })).status, 200);
    assert.equal((await admin.post('/admin/v1/models?check=off', { id: 'acme/bad', title: 'Bad', ...prices, upstream: { url, responses: 'yes' } })).status, 400);

    const address = await t.app.listen({ host: '127.0.0.1', port: 0 });
    const team = await createTeam(t.app, t.creds.adminToken);
    await topup(t.app, t.creds.adminToken, team.userId, 100000);
    const key = as(t.app, team.owner.apiKey);
    const balance = async () => Number((await key.get('/openapi/v1/billing/balance/detail')).body.availableBalance);
    const client = new OpenAI({ apiKey: team.owner.apiKey, baseURL: `${address}/openai/v1`, maxRetries: 0 });

    const sent = {
      model: 'acme/native', instructions: 'Be brief.', input: [{ role: 'user' as const, content: 'rivers?' }], max_output_tokens: 50,
      reasoning: { effort: 'low' as const }, include: ['reasoning.encrypted_content' as const], truncation: 'auto' as const,
      metadata: { trace: 't-1' }, temperature: 0.4,
      // a built-in tool chat cannot carry: refused by translation, passed on to a Responses upstream
      tools: [{ type: 'function' as const, name: 'look', parameters: { type: 'object', properties: {} }, strict: false }, { type: 'web_search_preview' as const }],
    };
    let before = await balance();
    const plain = await client.responses.create(sent);
    assert.equal(seen[0]!.path, '/v1/responses');
    assert.deepEqual(seen[0]!.body, { ...sent, model: 'up-model' }, 'every field reaches the upstream unchanged');
    assert.equal(plain.id, 'resp_up1');
    assert.equal(plain.model, 'acme/native', 'the catalogue id, not the upstream name');
    assert.equal(plain.output_text, 'Rivers flow.');
    assert.deepEqual(plain.usage, USAGE);
    assert.deepEqual((plain as unknown as { upstream_extra: unknown }).upstream_extra, { kept: true }, 'fields Gantry does not know come back too');
    assert.equal(before - (await balance()), 20 * 4 + 10 * 1 + 6 * 10, 'billed from the upstream usage: uncached, cached, output (reasoning included)');

    const got = await client.responses.retrieve('resp_up1');
    assert.equal(got.output_text, 'Rivers flow.', 'stored under the upstream id');

    before = await balance();
    const events: string[] = [];
    const stream = await client.responses.create({ model: 'acme/native', input: 'more', previous_response_id: 'resp_up1', stream: true });
    let text = '';
    for await (const e of stream) {
      events.push(e.type);
      if (e.type === 'response.output_text.delta') text += e.delta;
    }
    assert.deepEqual(events, ['response.created', 'response.output_text.delta', 'response.output_text.delta', 'response.completed']);
    assert.equal(text, 'Rivers flow.');
    assert.deepEqual(seen[1]!.body, { model: 'up-model', input: 'more', previous_response_id: 'resp_up1', stream: true });
    assert.equal(before - (await balance()), 20 * 4 + 10 * 1 + 6 * 10, 'the stream is billed from its response.completed usage');
    assert.equal((await client.responses.retrieve('resp_up2')).previous_response_id, 'resp_up1');

    // storing fails after billing (the id is taken): the client still gets the answer it paid for
    before = await balance();
    const dup = await key.post('/openai/v1/responses', { model: 'acme/native', input: 'dup' });
    assert.equal(dup.status, 200, JSON.stringify(dup.body));
    assert.equal(dup.body.output[0].content[0].text, 'Rivers flow.');
    assert.equal(before - (await balance()), 20 * 4 + 10 * 1 + 6 * 10);
    assert.equal((await client.responses.retrieve('resp_up1')).previous_response_id, null, 'the first one stored stays');

    // a previous_response_id Gantry never stored is refused before any upstream call
    const unknown = await key.post('/openai/v1/responses', { model: 'acme/native', input: 'x', previous_response_id: 'resp_nope' });
    assert.equal(unknown.status, 400);
    assert.equal(seen.length, 3);

    // without the flag: translated to chat completions, where a built-in tool is refused
    const builtin = await key.post('/openai/v1/responses', { model: 'acme/chat', input: 'x', tools: [{ type: 'web_search_preview' }] });
    assert.equal(builtin.status, 400);
    assert.equal(builtin.body.metadata.field, 'tools.0.type');
    const chat = await client.responses.create({ model: 'acme/chat', input: 'rivers?' });
    assert.equal(seen[3]!.path, '/v1/chat/completions');
    assert.equal(chat.output_text, 'chat answer');
  } finally {
    await t.close();
    upstream.close();
  }
});
