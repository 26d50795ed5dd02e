// Requests OpenAI refuses are refused the same way, before admission and for every upstream:
// 400 INVALID_REQUEST_BODY in the unified body with OpenAI's `error` member naming the field,
// nothing counted against rate limits. A schema the simulator cannot satisfy is a 400 too.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp } from '../../test/helpers/app.ts';
import { as } from '../../test/helpers/http.ts';
import { createTeam, topup } from '../../test/helpers/factories.ts';
import { AppError } from '../lib/errors.ts';
import { JSON_DEPTH_RULE } from '../lib/json-depth.ts';
import { checkRequestRules } from './request-rules.ts';
import type { ModelBody } from './upstreams/upstream.ts';

const MODEL = 'gantry/sim-chat-small';
const user = [{ role: 'user', content: 'What is the weather in Paris?' }];
const weather = { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } };
const call = { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } };

const REFUSED: Array<[string, Record<string, unknown>, string, RegExp]> = [
  ['a named tool_choice that is not among tools', { messages: user, tools: [weather], tool_choice: { type: 'function', function: { name: 'get_time' } } }, 'tool_choice', /no function named 'get_time'/],
  ['tool_choice without tools', { messages: user, tool_choice: 'required' }, 'tool_choice', /only allowed when 'tools' are specified/],
  ['parallel_tool_calls without tools', { messages: user, parallel_tool_calls: false }, 'parallel_tool_calls', /only allowed when 'tools'/],
  ['a json_schema without a schema', { messages: user, response_format: { type: 'json_schema', json_schema: { name: 'answer' } } }, 'response_format.json_schema.schema', /Missing required parameter/],
  ['a json_schema ajv cannot compile', { messages: user, response_format: { type: 'json_schema', json_schema: { name: 'answer', schema: { type: 'object', properties: { a: { type: 'strin' } } } } } }, 'response_format.json_schema.schema', /Invalid schema for response_format 'answer'/],
  ['stream_options without stream', { messages: user, stream_options: { include_usage: true } }, 'stream_options', /only allowed when 'stream' is enabled/],
  ['an unknown role', { messages: [{ role: 'robot', content: 'hi' }] }, 'messages.0.role', /must be one of/],
  ['a tool message answering nothing', { messages: [...user, { role: 'tool', tool_call_id: 'call_9', content: '18C' }] }, 'messages.1.role', /must be a response to a preceeding message with 'tool_calls'/],
  ['a tool message answering another id', { messages: [...user, { role: 'assistant', content: null, tool_calls: [call] }, { role: 'tool', tool_call_id: 'call_2', content: '18C' }] }, 'messages.2.role', /call_2/],
  ['a tool call left unanswered', { messages: [...user, { role: 'assistant', content: null, tool_calls: [call] }, { role: 'user', content: 'and?' }] }, 'messages.1', /did not have response messages: call_1/],
  ['a tool message without tool_call_id', { messages: [...user, { role: 'assistant', tool_calls: [call] }, { role: 'tool', content: '18C' }] }, 'messages.2.tool_call_id', /Missing required parameter/],
  ['a user message without content', { messages: [{ role: 'user' }] }, 'messages.0.content', /Missing required parameter/],
  ['tool parameters that are not an object schema', { messages: user, tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'string' } } }] }, 'tools.0.function.parameters', /must be a JSON Schema of 'type: "object"', got 'type: "string"'/],
  ['tool parameters ajv cannot compile', { messages: user, tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object', required: 'city' } } }] }, 'tools.0.function.parameters', /Invalid schema for function 'f'/],
  ['a function name OpenAI refuses', { messages: user, tools: [{ type: 'function', function: { name: 'get weather' } }] }, 'tools.0.function.name', /must match pattern/],
  ['n above 128', { messages: user, n: 129 }, 'n', /in 1-128/],
  ['n below 1', { messages: user, n: 0 }, 'n', /in 1-128/],
  ['top_logprobs without logprobs', { messages: user, top_logprobs: 3 }, 'top_logprobs', /'logprobs' must be set to true/],
  ['top_logprobs above 20', { messages: user, logprobs: true, top_logprobs: 21 }, 'top_logprobs', /in 0-20/],
  ['more than 4 stop sequences', { messages: user, stop: ['a', 'b', 'c', 'd', 'e'] }, 'stop', /.+/],
  ['a response_format the simulator cannot satisfy', { messages: user, response_format: { type: 'json_schema', json_schema: { name: 'range', schema: { type: 'object', required: ['n'], properties: { n: { type: 'integer', minimum: 5, maximum: 1 } } } } } }, 'response_format', /no integer lies between the minimum and the maximum/],
  ['tool parameters the simulator cannot satisfy', { messages: user, tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object', required: ['x'], properties: {}, additionalProperties: false } } }], tool_choice: 'required' }, 'tools', /required property "x" is not among properties/],
];

test('requests OpenAI refuses are refused the same way, before anything is counted', async () => {
  const t = await buildTestApp({ env: { GANTRY_SIM_TTFT_MS: '0', GANTRY_SIM_TOKENS_PER_S: '1000000' } });
  try {
    const team = await createTeam(t.app, t.creds.adminToken);
    await topup(t.app, t.creds.adminToken, team.userId, 100000);
    const api = as(t.app, team.owner.apiKey);
    for (const [what, body, field, message] of REFUSED) {
      const res = await api.post('/openai/v1/chat/completions', { model: MODEL, ...body });
      assert.equal(res.status, 400, `${what}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.reason, 'INVALID_REQUEST_BODY', what);
      assert.equal(res.body.code, 400, what);
      assert.equal(res.body.error.type, 'invalid_request_error', what);
      assert.equal(res.body.error.param, field, `${what}: ${res.body.error.message}`);
      assert.match(res.body.error.message, message, what);
      assert.equal(res.body.message, res.body.error.message, what);
    }
    // The completions route shares the stream_options rule.
    const comp = await api.post('/openai/v1/completions', { model: MODEL, prompt: 'hi', stream_options: { include_usage: true } });
    assert.equal(comp.status, 400);
    assert.equal(comp.body.error.param, 'stream_options');
    // A well-formed tool round trip passes the same rules.
    const ok = await api.post('/openai/v1/chat/completions', {
      model: MODEL, tools: [weather], tool_choice: 'auto',
      messages: [...user, { role: 'assistant', content: null, tool_calls: [call] }, { role: 'tool', tool_call_id: 'call_1', content: '18C' }],
    });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
  } finally {
    await t.close();
  }
});

/** `{type: array, items: …}` nested to `levels` levels of JSON objects. */
function nested(levels: number): Record<string, unknown> {
  let s: Record<string, unknown> = { type: 'string' };
  for (let i = 1; i < levels; i++) s = { type: 'array', items: s };
  return s;
}

test('a model body carrying a tool schema nested past the limit, however it was parsed, is a 400 naming the field and the rule', () => {
  const body = {
    model: 'm', messages: [{ role: 'user', content: 'x' }],
    tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object', properties: { a: nested(100_000) } } } }],
  } as unknown as ModelBody;
  assert.throws(() => checkRequestRules('chat.completions', body), (e: unknown) => {
    assert.ok(e instanceof AppError);
    assert.equal(e.reason, 'INVALID_REQUEST_BODY');
    assert.deepEqual([e.metadata.field, e.metadata.rule], ['tools.0.function.parameters', JSON_DEPTH_RULE]);
    return true;
  });
});
