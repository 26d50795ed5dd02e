// The Anthropic translation alone: Messages requests as chat requests, chat answers and
// streams as Anthropic's message and events.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AppError } from '../../lib/errors.ts';
import { anthropicMessage, stopReason } from './answer.ts';
import { chatRequest, type MessagesBody } from './request.ts';
import { anthropicEvents } from './stream.ts';

const base = { model: 'gantry/sim-chat-small', max_tokens: 50 };

test('a request: system, text, tool_use and tool_result blocks, tools, choice, sampling and stream', () => {
  const body: MessagesBody = {
    ...base,
    system: [{ type: 'text', text: 'Be brief.' }, { type: 'text', text: 'Be kind.' }],
    messages: [
      { role: 'user', content: 'call get_weather for Paris' },
      { role: 'assistant', content: [{ type: 'text', text: 'Looking.' }, { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'sunny' }] }, { type: 'text', text: 'thanks' }] },
    ],
    tools: [{ name: 'get_weather', description: 'weather', input_schema: { type: 'object', properties: { city: { type: 'string' } } } }],
    tool_choice: { type: 'any', disable_parallel_tool_use: true },
    stop_sequences: ['END'], temperature: 0, top_p: 0.9, top_k: 5, metadata: { user_id: 'u-1' }, stream: true,
  };
  assert.deepEqual(chatRequest(body), {
    model: base.model, max_tokens: 50,
    messages: [
      { role: 'system', content: 'Be brief.\nBe kind.' },
      { role: 'user', content: 'call get_weather for Paris' },
      { role: 'assistant', content: 'Looking.', tool_calls: [{ id: 'toolu_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
      { role: 'tool', tool_call_id: 'toolu_1', content: 'sunny' },
      { role: 'user', content: 'thanks' },
    ],
    tools: [{ type: 'function', function: { name: 'get_weather', description: 'weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }],
    tool_choice: 'required', parallel_tool_calls: false,
    stop: ['END'], temperature: 0, top_p: 0.9, top_k: 5, user: 'u-1', stream: true, stream_options: { include_usage: true },
  });
});

test('tool choices, errors of tool results, images, and what has no chat equivalent', () => {
  const tools = [{ name: 'f', input_schema: { type: 'object' } }];
  const user = [{ role: 'user' as const, content: 'hi' }];
  assert.equal(chatRequest({ ...base, messages: user, tools, tool_choice: { type: 'auto' } }).tool_choice, 'auto');
  assert.equal(chatRequest({ ...base, messages: user, tools, tool_choice: { type: 'none' } }).tool_choice, 'none');
  assert.deepEqual(chatRequest({ ...base, messages: user, tools, tool_choice: { type: 'tool', name: 'f' } }).tool_choice, { type: 'function', function: { name: 'f' } });
  const r = chatRequest({
    ...base,
    messages: [
      { role: 'user', content: 'x' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'f', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'boom', is_error: true }, { type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: 'AAAA' } }, { type: 'text', text: 'look' }] },
    ],
  });
  assert.deepEqual(r.messages.slice(1), [
    { role: 'assistant', content: null, tool_calls: [{ id: 't1', type: 'function', function: { name: 'f', arguments: '{}' } }] },
    { role: 'tool', tool_call_id: 't1', content: 'Error: boom' },
    { role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/jpeg;base64,AAAA' } }, { type: 'text', text: 'look' }] },
  ]);
  const refused = (b: MessagesBody, field: string) => assert.throws(() => chatRequest(b), (e: unknown) => {
    assert.ok(e instanceof AppError);
    assert.equal(e.reason, 'INVALID_REQUEST_BODY');
    assert.equal(e.metadata.field, field);
    return true;
  });
  refused({ ...base, messages: user, tools: [{ type: 'web_search_20250305', name: 'web_search' }] }, 'tools.0.type');
  refused({ ...base, messages: [{ role: 'user', content: [{ type: 'document' }] }] }, 'messages.0.content.0.type');
  refused({ ...base, messages: [{ role: 'user', content: [{ type: 'text' } as never] }] }, 'messages.0.content.0.text');
  refused({ ...base, messages: user, tool_choice: { type: 'any' } }, 'tool_choice');
});

test('an answer: text and tool_use blocks, stop reasons, usage with cache reads apart', () => {
  const msg = anthropicMessage({
    id: 'chatcmpl-abc', model: 'm', object: 'chat.completion',
    choices: [{ index: 0, finish_reason: 'tool_calls', message: { role: 'assistant', content: 'Sure.', tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: '{"a":1}' } }] } }],
    usage: { prompt_tokens: 10, completion_tokens: 4, total_tokens: 14, prompt_tokens_details: { cached_tokens: 3 } },
  }, undefined);
  assert.deepEqual(msg, {
    id: 'msg_abc', type: 'message', role: 'assistant', model: 'm',
    content: [{ type: 'text', text: 'Sure.' }, { type: 'tool_use', id: 'call_1', name: 'f', input: { a: 1 } }],
    stop_reason: 'tool_use', stop_sequence: null,
    usage: { input_tokens: 7, output_tokens: 4, cache_creation_input_tokens: 0, cache_read_input_tokens: 3 },
  });
  assert.deepEqual(stopReason('stop', 'END', ['END']), { stop_reason: 'stop_sequence', stop_sequence: 'END' });
  assert.deepEqual(stopReason('stop', null, ['END']), { stop_reason: 'end_turn', stop_sequence: null });
  assert.deepEqual(stopReason('length', undefined, undefined), { stop_reason: 'max_tokens', stop_sequence: null });
  assert.deepEqual(stopReason('content_filter', undefined, undefined), { stop_reason: 'refusal', stop_sequence: null });
});

async function* chunks(list: Array<Record<string, unknown>>) {
  for (const c of list) yield { id: 'chatcmpl-s', model: 'm', object: 'chat.completion.chunk', ...c };
}

test('a stream: Anthropic\'s event sequence from chat chunks, text then tool calls, usage at the end', async () => {
  const events = [];
  for await (const e of anthropicEvents(chunks([
    { choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] },
    { choices: [{ index: 0, delta: { content: 'Hel' }, finish_reason: null }] },
    { choices: [{ index: 0, delta: { content: 'lo' }, finish_reason: null }] },
    { choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'f', arguments: '' } }] }, finish_reason: null }] },
    { choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '{"a":' } }] }, finish_reason: null }] },
    { choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '1}' } }] }, finish_reason: null }] },
    { choices: [{ index: 0, delta: { tool_calls: [{ index: 1, id: 'call_2', type: 'function', function: { name: 'g', arguments: '{}' } }] }, finish_reason: null }] },
    { choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] },
    { choices: [], usage: { prompt_tokens: 9, completion_tokens: 6, total_tokens: 15 } },
  ]), 'm', undefined)) events.push(e);
  assert.deepEqual(events.map((e) => e.type), [
    'message_start', 'ping',
    'content_block_start', 'content_block_delta', 'content_block_delta', 'content_block_stop',
    'content_block_start', 'content_block_delta', 'content_block_delta', 'content_block_stop',
    'content_block_start', 'content_block_delta', 'content_block_stop',
    'message_delta', 'message_stop',
  ]);
  assert.deepEqual(events[0]!.message, {
    id: 'msg_s', type: 'message', role: 'assistant', model: 'm', content: [], stop_reason: null, stop_sequence: null,
    usage: { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
  });
  assert.deepEqual(events[6], { type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: 'call_1', name: 'f', input: {} } });
  assert.deepEqual(events[8], { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '1}' } });
  assert.deepEqual(events[10], { type: 'content_block_start', index: 2, content_block: { type: 'tool_use', id: 'call_2', name: 'g', input: {} } });
  assert.deepEqual(events[13], {
    type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null },
    usage: { input_tokens: 9, output_tokens: 6, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
  });
});
