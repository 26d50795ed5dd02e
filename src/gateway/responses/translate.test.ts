// The Responses translation alone: requests (input items, a stored conversation, tools,
// text.format) as chat requests, chat answers and streams as response objects and events.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AppError } from '../../lib/errors.ts';
import { responseIds, responseObject } from './answer.ts';
import { chatRequest, type ResponsesBody } from './request.ts';
import { responseEvents } from './stream.ts';

const base = { model: 'gantry/sim-chat-small' };

test('a request: instructions, a stored conversation, items, tools, tool choice, text.format and limits', () => {
  const previous = [
    { type: 'message', role: 'user', content: 'call f' },
    { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Calling.' }] },
    { type: 'function_call', call_id: 'c1', name: 'f', arguments: '{"a":1}' },
  ];
  const body: ResponsesBody = {
    ...base, instructions: 'Be brief.',
    input: [
      { type: 'function_call_output', call_id: 'c1', output: 'ok' },
      { role: 'developer', content: [{ type: 'input_text', text: 'Prefer metric.' }] },
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'and' }, { type: 'input_image', image_url: 'https://x/i.png' }] },
      { type: 'reasoning', summary: [] },
    ],
    tools: [{ type: 'function', name: 'f', parameters: { type: 'object' }, strict: true }],
    tool_choice: { type: 'function', name: 'f' }, parallel_tool_calls: false,
    text: { format: { type: 'json_schema', name: 'x', schema: { type: 'object' }, strict: true } },
    max_output_tokens: 64, temperature: 0.5, top_p: 0.9, user: 'u', stream: true,
  };
  assert.deepEqual(chatRequest(body, previous), {
    model: base.model,
    messages: [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'call f' },
      { role: 'assistant', content: 'Calling.', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{"a":1}' } }] },
      { role: 'tool', tool_call_id: 'c1', content: 'ok' },
      { role: 'system', content: 'Prefer metric.' },
      { role: 'user', content: [{ type: 'text', text: 'and' }, { type: 'image_url', image_url: { url: 'https://x/i.png' } }] },
    ],
    tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object' }, strict: true } }],
    tool_choice: { type: 'function', function: { name: 'f' } }, parallel_tool_calls: false,
    response_format: { type: 'json_schema', json_schema: { name: 'x', schema: { type: 'object' }, strict: true } },
    max_completion_tokens: 64, temperature: 0.5, top_p: 0.9, user: 'u', stream: true, stream_options: { include_usage: true },
  });
  assert.deepEqual(chatRequest({ ...base, input: 'hi', text: { format: { type: 'json_object' } } }), { model: base.model, messages: [{ role: 'user', content: 'hi' }], response_format: { type: 'json_object' } });
  const refused = (b: ResponsesBody, field: string) => assert.throws(() => chatRequest(b), (e: unknown) => e instanceof AppError && e.metadata.field === field);
  refused({ ...base, input: 'hi', tools: [{ type: 'web_search' }] }, 'tools.0.type');
  refused({ ...base, input: [{ type: 'item_reference', id: 'x' }] }, 'input.0.type');
  refused({ ...base, input: [{ role: 'tool', content: 'x' }] }, 'input.0.role');
  refused({ ...base, input: 'hi', text: { format: { type: 'json_schema', name: 'x' } } }, 'text.format.schema');
});

test('an answer: message and function call items, incomplete at max tokens, usage in the Responses names', () => {
  const { response, output } = responseObject({
    id: 'chatcmpl-r1', model: 'm', object: 'chat.completion',
    choices: [{ index: 0, finish_reason: 'tool_calls', message: { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: '{}' } }] } }],
    usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 },
  }, { ...base, input: 'x' }, responseIds('resp_r1'), 100);
  assert.deepEqual(output, [{ id: 'fc_r1_0', type: 'function_call', status: 'completed', call_id: 'call_1', name: 'f', arguments: '{}' }]);
  assert.equal(response.id, 'resp_r1');
  assert.equal(response.status, 'completed');
  assert.deepEqual(response.usage, { input_tokens: 5, input_tokens_details: { cached_tokens: 0 }, output_tokens: 2, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 7 });
  const cut = responseObject({ id: 'chatcmpl-r2', model: 'm', choices: [{ index: 0, finish_reason: 'length', message: { role: 'assistant', content: 'abc' } }] }, { ...base, input: 'x' }, responseIds('resp_r2'), 100);
  assert.equal(cut.response.status, 'incomplete');
  assert.deepEqual(cut.response.incomplete_details, { reason: 'max_output_tokens' });
  assert.deepEqual(cut.output, [{ id: 'msg_r2', type: 'message', status: 'incomplete', role: 'assistant', content: [{ type: 'output_text', text: 'abc', annotations: [], logprobs: [] }] }]);
});

async function* chunks(list: Array<Record<string, unknown>>) {
  for (const c of list) yield { id: 'chatcmpl-s', model: 'm', object: 'chat.completion.chunk', ...c };
}

test('a stream: the Responses event sequence, numbered, stored before the last event', async () => {
  const stored: unknown[] = [];
  const events = [];
  for await (const e of responseEvents(chunks([
    { choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] },
    { choices: [{ index: 0, delta: { content: 'Hi' }, finish_reason: null }] },
    { choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'f', arguments: '' } }] }, finish_reason: null }] },
    { choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '{}' } }] }, finish_reason: null }] },
    { choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] },
    { choices: [], usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 } },
  ]), { ...base, input: 'x' }, responseIds('resp_s'), 100, async (_r, output) => { stored.push(...output); })) events.push(e);
  assert.deepEqual(events.map((e) => e.type), [
    'response.created', 'response.in_progress',
    'response.output_item.added', 'response.content_part.added', 'response.output_text.delta',
    'response.output_text.done', 'response.content_part.done', 'response.output_item.done',
    'response.output_item.added', 'response.function_call_arguments.delta', 'response.function_call_arguments.done', 'response.output_item.done',
    'response.completed',
  ]);
  assert.deepEqual(events.map((e) => e.sequence_number), events.map((_e, i) => i));
  const done = events.at(-1)!.response as { output: unknown[]; usage: { total_tokens: number } };
  assert.deepEqual(done.output, stored);
  assert.equal(done.usage.total_tokens, 5);
  assert.deepEqual(events[10], { type: 'response.function_call_arguments.done', item_id: 'fc_s_0', output_index: 1, name: 'f', arguments: '{}', sequence_number: 10 });
});
