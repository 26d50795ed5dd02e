// Clients written for Anthropic work against Gantry's /anthropic door: the official
// `@anthropic-ai/sdk` against a listening Gantry (messages plain and streamed, a tool round
// trip, stop sequences, countTokens), its errors carry Anthropic's types, and the calls are
// metered like chat.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import Anthropic from '@anthropic-ai/sdk';
import { buildTestApp } from '../../test/helpers/app.ts';
import { as } from '../../test/helpers/http.ts';
import { createTeam, topup } from '../../test/helpers/factories.ts';

const MODEL = 'gantry/sim-chat-small';

test('the official @anthropic-ai/sdk drives the gateway through /anthropic', async () => {
  const t = await buildTestApp({ env: { GANTRY_SIM_TTFT_MS: '1', GANTRY_SIM_TOKENS_PER_S: '100000' } });
  try {
    const address = await t.app.listen({ host: '127.0.0.1', port: 0 });
    const team = await createTeam(t.app, t.creds.adminToken);
    await topup(t.app, t.creds.adminToken, team.userId, 100000);
    const client = new Anthropic({ apiKey: team.owner.apiKey, baseURL: `${address}/anthropic`, maxRetries: 0 });

    const messages = [{ role: 'user' as const, content: 'Say something about gardens.' }];
    const done = await client.messages.create({ model: MODEL, max_tokens: 40, system: 'You are terse.', messages });
    assert.equal(done.type, 'message');
    assert.match(done.id, /^msg_/);
    assert.match(String(done._request_id), /^req_/, 'the SDK reads the request id from the request-id header');
    assert.equal(done.model, MODEL);
    assert.equal(done.content[0]!.type, 'text');
    const text = (done.content[0] as Anthropic.TextBlock).text;
    assert.ok(text.length > 0);
    assert.ok(['end_turn', 'max_tokens'].includes(done.stop_reason!));
    assert.ok(done.usage.input_tokens > 0 && done.usage.output_tokens > 0);

    // Streamed: the SDK's helper accumulates Anthropic's events into the same message.
    const stream = client.messages.stream({ model: MODEL, max_tokens: 40, system: 'You are terse.', messages });
    let streamed = '';
    stream.on('text', (d) => { streamed += d; });
    const final = await stream.finalMessage();
    assert.equal(streamed, text, 'streamed text equals the non-streamed answer');
    assert.deepEqual(final.content, done.content);
    assert.equal(final.stop_reason, done.stop_reason);
    assert.deepEqual(final.usage, done.usage, 'message_delta carries the whole usage');

    // A stop sequence met ends the text before it: stop_reason stop_sequence, naming it.
    // (the SDK's types no longer list `temperature`; the API takes it, and the SDK sends the body as given)
    const greedyParams = { model: MODEL, max_tokens: 60, temperature: 0, messages } as Anthropic.MessageCreateParamsNonStreaming;
    const greedy = await client.messages.create(greedyParams);
    const words = (greedy.content[0] as Anthropic.TextBlock).text.split(' ');
    const stop = words[Math.floor(words.length / 2)]!;
    const stopped = await client.messages.create({ ...greedyParams, stop_sequences: [stop] });
    assert.equal(stopped.stop_reason, 'stop_sequence');
    assert.equal(stopped.stop_sequence, stop);
    assert.equal((stopped.content[0] as Anthropic.TextBlock).text, (greedy.content[0] as Anthropic.TextBlock).text.slice(0, (greedy.content[0] as Anthropic.TextBlock).text.indexOf(stop)));

    // A tool round trip: tool_use (input valid against input_schema), then tool_result, then text.
    const tools: Anthropic.Tool[] = [{
      name: 'get_weather', description: 'The weather in a city',
      input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    }];
    const ask: Anthropic.MessageParam = { role: 'user', content: 'Please call get_weather for Paris.' };
    const call = await client.messages.create({ model: MODEL, max_tokens: 100, tools, messages: [ask] });
    assert.equal(call.stop_reason, 'tool_use');
    const use = call.content.find((b): b is Anthropic.ToolUseBlock => b.type === 'tool_use')!;
    assert.equal(use.name, 'get_weather');
    assert.equal(typeof (use.input as { city: unknown }).city, 'string');
    const streamedCall = await client.messages.stream({ model: MODEL, max_tokens: 100, tools, messages: [ask] }).finalMessage();
    assert.deepEqual(streamedCall.content, call.content, 'input_json_delta fragments add up to the same input');
    const answer = await client.messages.create({
      model: MODEL, max_tokens: 200, tools,
      messages: [ask, { role: 'assistant', content: call.content }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: '18°C and sunny' }] }],
    });
    assert.equal(answer.stop_reason, 'end_turn');
    assert.equal(answer.content[0]!.type, 'text');
    // tool_choice "tool" forces that tool
    const forced = await client.messages.create({ model: MODEL, max_tokens: 100, tools, tool_choice: { type: 'tool', name: 'get_weather' }, messages });
    assert.equal(forced.content[0]!.type, 'tool_use');

    // countTokens: the count the simulator bills as input_tokens.
    const counted = await client.messages.countTokens({ model: MODEL, system: 'You are terse.', messages });
    assert.deepEqual(counted, { input_tokens: done.usage.input_tokens });

    // Errors: Anthropic's error classes, types and our message.
    await assert.rejects(client.messages.create({ model: 'acme/nope', max_tokens: 10, messages }), (e: unknown) => {
      assert.ok(e instanceof Anthropic.NotFoundError);
      assert.equal(e.status, 404);
      assert.equal(e.type, 'not_found_error');
      assert.match(e.message, /model acme\/nope does not exist/);
      return true;
    });
    await assert.rejects(client.messages.countTokens({ model: 'acme/nope', messages }), Anthropic.NotFoundError);
    await assert.rejects(client.messages.create({ model: MODEL, messages } as unknown as Anthropic.MessageCreateParamsNonStreaming), (e: unknown) => {
      assert.ok(e instanceof Anthropic.BadRequestError);
      assert.equal(e.type, 'invalid_request_error');
      assert.match(e.message, /max_tokens/);
      return true;
    });
    await assert.rejects(new Anthropic({ apiKey: 'sk_' + 'x'.repeat(40), baseURL: `${address}/anthropic`, maxRetries: 0 }).messages.create({ model: MODEL, max_tokens: 10, messages }), (e: unknown) => {
      assert.ok(e instanceof Anthropic.AuthenticationError);
      assert.equal(e.type, 'authentication_error');
      return true;
    });
    // The key as a bearer token (ANTHROPIC_AUTH_TOKEN) works too.
    const bearer = new Anthropic({ apiKey: null, authToken: team.owner.apiKey, baseURL: `${address}/anthropic`, maxRetries: 0 });
    assert.equal((await bearer.messages.create({ model: MODEL, max_tokens: 10, messages })).type, 'message');
    // A team that cannot pay: 403, billing_error.
    const poor = await createTeam(t.app, t.creds.adminToken);
    await assert.rejects(new Anthropic({ apiKey: poor.owner.apiKey, baseURL: `${address}/anthropic`, maxRetries: 0 }).messages.create({ model: MODEL, max_tokens: 10, messages }), (e: unknown) => {
      assert.ok(e instanceof Anthropic.PermissionDeniedError);
      assert.equal(e.type, 'billing_error');
      assert.match(e.message, /account balance cannot cover/);
      return true;
    });
  } finally {
    await t.close();
  }
});

test('/anthropic is metered like chat, answers without anthropic-version, and frames its stream as named events', async () => {
  const t = await buildTestApp({ env: { GANTRY_SIM_TTFT_MS: '1', GANTRY_SIM_TOKENS_PER_S: '100000' } });
  try {
    const admin = as(t.app, t.creds.adminToken);
    // 1 unit per token in and out, so the charge is the token count.
    const pricey = await admin.post('/admin/v1/models', { id: 'acme/pricey', title: 'Pricey', contextSize: 100000, inputTokenPricePerM: 1000000, outputTokenPricePerM: 1000000, status: 'available', upstream: 'sim' });
    assert.equal(pricey.status, 200, JSON.stringify(pricey.body));
    const team = await createTeam(t.app, t.creds.adminToken);
    await topup(t.app, t.creds.adminToken, team.userId, 20000);
    const post = (payload: unknown, headers: Record<string, string> = {}) => t.app.inject({
      method: 'POST', url: '/anthropic/v1/messages', payload: JSON.stringify(payload),
      headers: { 'content-type': 'application/json', 'x-api-key': team.owner.apiKey, ...headers },
    });
    const res = await post({ model: 'acme/pricey', max_tokens: 20, messages: [{ role: 'user', content: 'Hello there' }] });
    assert.equal(res.statusCode, 200, res.body);
    const msg = JSON.parse(res.body);
    const bal = await as(t.app, team.owner.apiKey).get('/openapi/v1/billing/balance/detail');
    assert.equal(bal.body.availableBalance, String(20000 - msg.usage.input_tokens - msg.usage.output_tokens), 'billed by the same settlement as chat');

    const ev = await post({ model: 'acme/pricey', max_tokens: 20, stream: true, messages: [{ role: 'user', content: 'Hello there' }] }, { 'anthropic-version': '2023-06-01' });
    assert.equal(ev.statusCode, 200);
    assert.match(String(ev.headers['content-type']), /text\/event-stream/);
    const frames = ev.body.trim().split('\n\n').map((f) => {
      const [event, data] = f.split('\n');
      const body = JSON.parse(data!.replace(/^data: /, ''));
      assert.equal(event, `event: ${body.type}`);
      return body.type as string;
    });
    assert.deepEqual([frames[0], frames[1], frames[2], frames.at(-3), frames.at(-2), frames.at(-1)],
      ['message_start', 'ping', 'content_block_start', 'content_block_stop', 'message_delta', 'message_stop']);

    // Errors in Anthropic's body, the unified fields kept.
    const bad = await post({ model: 'acme/pricey', messages: [{ role: 'user', content: 'x' }] });
    assert.equal(bad.statusCode, 400);
    const err = JSON.parse(bad.body);
    assert.equal(err.type, 'error');
    assert.equal(err.error.type, 'invalid_request_error');
    assert.equal(err.reason, 'INVALID_REQUEST_BODY');
    assert.equal(err.code, 400);
    const none = await t.app.inject({ method: 'POST', url: '/anthropic/v1/messages', payload: '{}', headers: { 'content-type': 'application/json' } });
    assert.equal(none.statusCode, 401);
    assert.equal(JSON.parse(none.body).error.type, 'authentication_error');
    assert.match(JSON.parse(none.body).message, /x-api-key/);
    const unknown = await t.app.inject({ method: 'GET', url: '/anthropic/v1/nothing' });
    assert.equal(unknown.statusCode, 404);
    assert.equal(JSON.parse(unknown.body).error.type, 'not_found_error');
  } finally {
    await t.close();
  }
});
