// The Anthropic and Responses doors against an HTTP upstream that records what it was sent:
// the translated chat request reaches it field by field, the upstream's answer (a stop
// sequence named as vLLM names it, cached prompt tokens, tool calls) comes back translated,
// and the call is billed from the upstream's usage like chat.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage } from 'node:http';
import { once } from 'node:events';
import { buildTestApp } from '../../test/helpers/app.ts';
import { as } from '../../test/helpers/http.ts';
import { createTeam, topup } from '../../test/helpers/factories.ts';

async function readJson(req: IncomingMessage): Promise<any> {
  let s = '';
  for await (const c of req) s += c;
  return JSON.parse(s);
}

const USAGE = { prompt_tokens: 20, completion_tokens: 5, total_tokens: 25, prompt_tokens_details: { cached_tokens: 8 } };

test('Anthropic and Responses requests reach an HTTP upstream as chat, its answers come back translated and billed', async () => {
  const seen: any[] = [];
  let answer: Record<string, unknown> = {};
  const upstream = createServer(async (req, res) => {
    seen.push(await readJson(req));
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ id: 'up-1', object: 'chat.completion', created: 1, model: 'real-name', usage: USAGE, ...answer }));
  });
  upstream.listen(0, '127.0.0.1');
  await once(upstream, 'listening');
  const t = await buildTestApp();
  try {
    const admin = as(t.app, t.creds.adminToken);
    // 1 unit per token in and out: the charge is the token count the upstream reports
    const upsert = await admin.post('/admin/v1/models?check=off', {
      id: 'acme/remote', title: 'Remote', contextSize: 8192, inputTokenPricePerM: 1000000, outputTokenPricePerM: 1000000, status: 'available',
      upstream: { url: `http://127.0.0.1:${(upstream.address() as { port: number }).port}/v1`, model: 'real-name' },
    });
    assert.equal(upsert.status, 200, JSON.stringify(upsert.body));
    const team = await createTeam(t.app, t.creds.adminToken);
    await topup(t.app, t.creds.adminToken, team.userId, 100000);
    const key = as(t.app, team.owner.apiKey);
    const tools = { type: 'object', properties: { city: { type: 'string' } } };

    answer = { choices: [{ index: 0, message: { role: 'assistant', content: 'It is warm', refusal: null }, finish_reason: 'stop', stop_reason: 'END' }] };
    const msg = await key.post('/anthropic/v1/messages', {
      model: 'acme/remote', max_tokens: 50, system: 'Be brief.', stop_sequences: ['END', 'STOP'], temperature: 0.2, top_p: 0.8, top_k: 4,
      metadata: { user_id: 'user-7' }, tools: [{ name: 'get_weather', description: 'Weather', input_schema: tools }], tool_choice: { type: 'auto', disable_parallel_tool_use: true },
      messages: [
        { role: 'user', content: 'call get_weather' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Oslo' } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: '21C' }] },
      ],
    });
    assert.equal(msg.status, 200, JSON.stringify(msg.body));
    assert.deepEqual(seen[0], {
      model: 'real-name', max_tokens: 50, stop: ['END', 'STOP'], temperature: 0.2, top_p: 0.8, top_k: 4, user: 'user-7',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'call get_weather' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'toolu_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }] },
        { role: 'tool', tool_call_id: 'toolu_1', content: '21C' },
      ],
      tools: [{ type: 'function', function: { name: 'get_weather', description: 'Weather', parameters: tools } }],
      tool_choice: 'auto', parallel_tool_calls: false,
    });
    assert.deepEqual(msg.body, {
      id: 'msg_up-1', type: 'message', role: 'assistant', model: 'acme/remote', content: [{ type: 'text', text: 'It is warm' }],
      stop_reason: 'stop_sequence', stop_sequence: 'END',
      usage: { input_tokens: 12, output_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 8 },
    });

    answer = { choices: [{ index: 0, message: { role: 'assistant', content: null, refusal: null, tool_calls: [{ id: 'call_9', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Rome"}' } }] }, finish_reason: 'tool_calls' }] };
    const format = { type: 'json_schema', name: 'w', schema: tools, strict: true };
    const resp = await key.post('/openai/v1/responses', {
      model: 'acme/remote', instructions: 'Be brief.', input: 'weather in Rome?', max_output_tokens: 64, temperature: 0.3, user: 'user-8',
      tools: [{ type: 'function', name: 'get_weather', parameters: tools, strict: true }], tool_choice: 'required', text: { format },
    });
    assert.equal(resp.status, 200, JSON.stringify(resp.body));
    assert.deepEqual(seen[1], {
      model: 'real-name', max_completion_tokens: 64, temperature: 0.3, user: 'user-8',
      messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'weather in Rome?' }],
      tools: [{ type: 'function', function: { name: 'get_weather', parameters: tools, strict: true } }], tool_choice: 'required',
      response_format: { type: 'json_schema', json_schema: { name: 'w', schema: tools, strict: true } },
    });
    const rid = resp.body.id.replace(/^resp_/, '');
    assert.deepEqual(resp.body.output, [{ id: `fc_${rid}_0`, type: 'function_call', status: 'completed', call_id: 'call_9', name: 'get_weather', arguments: '{"city":"Rome"}' }]);
    assert.deepEqual(resp.body.usage, { input_tokens: 20, input_tokens_details: { cached_tokens: 8 }, output_tokens: 5, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 25 });

    // the id is Gantry's, not the upstream's (which need not be unique): a second call is stored too
    const again = await key.post('/openai/v1/responses', { model: 'acme/remote', input: 'again', tools: [{ type: 'function', name: 'get_weather', parameters: tools }] });
    assert.equal(again.status, 200, JSON.stringify(again.body));
    assert.notEqual(again.body.id, resp.body.id);
    assert.equal((await key.get(`/openai/v1/responses/${again.body.id}`)).status, 200);

    const bal = await key.get('/openapi/v1/billing/balance/detail');
    assert.equal(bal.body.availableBalance, String(100000 - 3 * 25), 'each call billed the upstream\'s 20 + 5 tokens');
  } finally {
    await t.close();
    upstream.close();
  }
});
