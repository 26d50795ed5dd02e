// The Responses API through the official `openai` package against a listening Gantry:
// create plain and streamed (the stream helper and raw events), a function tool round trip
// continued by previous_response_id, structured output by text.format json_schema, and the
// stored response retrieved and deleted (team-scoped, store: false not kept).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { buildTestApp } from '../../test/helpers/app.ts';
import { as } from '../../test/helpers/http.ts';
import { createTeam, topup } from '../../test/helpers/factories.ts';
import { pruneResponses } from '../domain/responses/responses.ts';

const MODEL = 'gantry/sim-chat-small';

test('the official openai package drives /openai/v1/responses', async () => {
  const t = await buildTestApp({ env: { GANTRY_SIM_TTFT_MS: '1', GANTRY_SIM_TOKENS_PER_S: '100000' } });
  try {
    const address = await t.app.listen({ host: '127.0.0.1', port: 0 });
    const team = await createTeam(t.app, t.creds.adminToken);
    await topup(t.app, t.creds.adminToken, team.userId, 100000);
    const client = new OpenAI({ apiKey: team.owner.apiKey, baseURL: `${address}/openai/v1`, maxRetries: 0 });

    const plain = await client.responses.create({ model: MODEL, instructions: 'Be brief.', input: 'Say something about rivers.', max_output_tokens: 60 });
    assert.match(plain.id, /^resp_/);
    assert.equal(plain.object, 'response');
    assert.equal(plain.model, MODEL);
    assert.equal(plain.instructions, 'Be brief.');
    assert.ok(['completed', 'incomplete'].includes(plain.status!));
    const msg = plain.output[0] as OpenAI.Responses.ResponseOutputMessage;
    assert.equal(msg.type, 'message');
    assert.equal(msg.content[0]!.type, 'output_text');
    assert.ok(plain.output_text.length > 0);
    assert.equal(plain.usage!.total_tokens, plain.usage!.input_tokens + plain.usage!.output_tokens);
    assert.deepEqual(plain.usage!.input_tokens_details, { cached_tokens: 0 });

    // Streamed with the SDK's helper: deltas add up to the same text, and finalResponse() is whole.
    const stream = client.responses.stream({ model: MODEL, instructions: 'Be brief.', input: 'Say something about rivers.', max_output_tokens: 60 });
    let text = '';
    stream.on('response.output_text.delta', (e) => { text += e.delta; });
    const final = await stream.finalResponse();
    assert.equal(text, plain.output_text);
    assert.equal(final.output_text, plain.output_text);
    assert.deepEqual(final.usage, plain.usage);

    // Raw events: the documented sequence, numbered.
    const events = await client.responses.create({ model: MODEL, input: 'Say something about rivers.', max_output_tokens: 60, stream: true });
    const seen: string[] = [];
    let last = -1;
    for await (const e of events) {
      seen.push(e.type);
      assert.equal(e.sequence_number, last + 1);
      last = e.sequence_number;
    }
    assert.deepEqual(seen.slice(0, 4), ['response.created', 'response.in_progress', 'response.output_item.added', 'response.content_part.added']);
    assert.ok(seen.includes('response.output_text.delta'));
    assert.deepEqual(seen.slice(-4), ['response.output_text.done', 'response.content_part.done', 'response.output_item.done', seen.at(-1)]);
    assert.ok(['response.completed', 'response.incomplete'].includes(seen.at(-1)!));

    // A function tool round trip: function_call, then its output continues the stored conversation.
    const tools: OpenAI.Responses.FunctionTool[] = [{
      type: 'function', name: 'get_weather', description: 'The weather in a city', strict: true,
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false },
    }];
    const call = await client.responses.create({ model: MODEL, input: 'Please call get_weather for Paris.', tools });
    const fc = call.output.find((o): o is OpenAI.Responses.ResponseFunctionToolCall => o.type === 'function_call')!;
    assert.equal(fc.name, 'get_weather');
    assert.equal(typeof JSON.parse(fc.arguments).city, 'string');
    const streamedCall = await client.responses.stream({ model: MODEL, input: 'Please call get_weather for Paris.', tools }).finalResponse();
    const same = (o: OpenAI.Responses.ResponseOutputItem) => o.type === 'function_call' ? [o.call_id, o.name, o.arguments, o.status] : o.type;
    assert.deepEqual(streamedCall.output.map(same), call.output.map(same), 'argument deltas add up to the same call');
    const answer = await client.responses.create({
      model: MODEL, previous_response_id: call.id, tools, max_output_tokens: 200,
      input: [{ type: 'function_call_output', call_id: fc.call_id, output: '18°C and sunny' }],
    });
    assert.equal(answer.previous_response_id, call.id);
    assert.equal(answer.output[0]!.type, 'message', 'a tool result gets a text answer');
    assert.ok(answer.output_text.length > 0);

    // Structured output: text.format json_schema gives JSON valid against the schema.
    const structured = await client.responses.create({
      model: MODEL, input: 'Describe a city.',
      text: { format: { type: 'json_schema', name: 'city', strict: true, schema: { type: 'object', properties: { name: { type: 'string' }, size: { type: 'string', enum: ['small', 'large'] } }, required: ['name', 'size'], additionalProperties: false } } },
    });
    const city = JSON.parse(structured.output_text);
    assert.equal(typeof city.name, 'string');
    assert.ok(['small', 'large'].includes(city.size));
    assert.equal(structured.text!.format!.type, 'json_schema');

    // Stored: retrieve, delete, gone; another team never sees it; store: false keeps nothing.
    const got = await client.responses.retrieve(plain.id);
    assert.equal(got.id, plain.id);
    assert.equal(got.output_text, plain.output_text);
    const other = await createTeam(t.app, t.creds.adminToken);
    await assert.rejects(new OpenAI({ apiKey: other.owner.apiKey, baseURL: `${address}/openai/v1`, maxRetries: 0 }).responses.retrieve(plain.id), OpenAI.NotFoundError);
    const deleted = await as(t.app, team.owner.apiKey).delete(`/openai/v1/responses/${plain.id}`);
    assert.deepEqual(deleted.body, { id: plain.id, object: 'response', deleted: true });
    await client.responses.delete(call.id);
    await assert.rejects(client.responses.retrieve(plain.id), (e: unknown) => {
      assert.ok(e instanceof OpenAI.NotFoundError);
      assert.equal(e.code, 'response_not_found');
      return true;
    });
    const unstored = await client.responses.create({ model: MODEL, input: 'hi', store: false });
    await assert.rejects(client.responses.retrieve(unstored.id), OpenAI.NotFoundError);
    await assert.rejects(client.responses.create({ model: MODEL, input: 'hi', previous_response_id: call.id }), (e: unknown) => {
      assert.ok(e instanceof OpenAI.BadRequestError);
      assert.equal(e.param, 'previous_response_id');
      return true;
    });
    // the aliases serve the same routes
    const alias = await as(t.app, team.owner.apiKey).post('/v3/openai/responses', { model: MODEL, input: 'hi', max_output_tokens: 16 });
    assert.equal(alias.status, 200, JSON.stringify(alias.body));
    assert.equal((await as(t.app, team.owner.apiKey).get(`/openai/responses/${alias.body.id}`)).body.id, alias.body.id);
    await assert.rejects(client.responses.create({ model: 'acme/nope', input: 'hi' }), OpenAI.NotFoundError);
  } finally {
    await t.close();
  }
});

test('stored responses expire after GANTRY_RESPONSES_TTL_DAYS: hidden at once, removed by responses.prune', async () => {
  const t = await buildTestApp({ env: { GANTRY_SIM_TTFT_MS: '0', GANTRY_SIM_TOKENS_PER_S: '1000000', GANTRY_RESPONSES_TTL_DAYS: '2' } });
  try {
    const team = await createTeam(t.app, t.creds.adminToken);
    await topup(t.app, t.creds.adminToken, team.userId, 100000);
    const key = as(t.app, team.owner.apiKey);
    const r = await key.post('/openai/v1/responses', { model: MODEL, input: 'hi', max_output_tokens: 16 });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    t.clock.advance(86_400_000);
    assert.equal((await key.get(`/openai/v1/responses/${r.body.id}`)).status, 200, 'kept within its days');
    t.clock.advance(86_400_000);
    assert.equal((await key.get(`/openai/v1/responses/${r.body.id}`)).status, 404, 'hidden at its expiry');
    assert.equal(await pruneResponses(t.services.responses), 1);
    assert.equal(await pruneResponses(t.services.responses), 0);
  } finally {
    await t.close();
  }
});
