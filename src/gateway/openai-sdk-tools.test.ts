// Agent loops and object helpers of the official `openai` package work on the simulator: a
// hand tool loop, `chat.completions.parse` with a JSON-schema response_format (built by hand:
// `openai/helpers/zod` needs zod, which is not a dependency), tool calls accumulated by the
// SDK's stream helper, logprobs, n, stop, seed and temperature.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { buildTestApp } from '../../test/helpers/app.ts';
import { createTeam, topup } from '../../test/helpers/factories.ts';

const MODEL = 'gantry/sim-chat-small';
const weatherParams = {
  type: 'object', additionalProperties: false, required: ['city', 'unit'],
  properties: { city: { type: 'string', minLength: 2 }, unit: { type: 'string', enum: ['celsius', 'fahrenheit'] } },
};
const tools: OpenAI.ChatCompletionTool[] = [
  { type: 'function', function: { name: 'get_weather', description: 'Current weather of a city', parameters: weatherParams } },
  { type: 'function', function: { name: 'get_time', parameters: { type: 'object', properties: { zone: { type: 'string' } }, required: ['zone'] } } },
];

test('the openai package: tool loop, parse, stream helper, logprobs, n, stop, temperature', async () => {
  // 500 tokens/s: a stream tick carries 5 tokens, so tool arguments arrive in several fragments
  const t = await buildTestApp({ env: { GANTRY_SIM_TTFT_MS: '1', GANTRY_SIM_TOKENS_PER_S: '500' } });
  try {
    const address = await t.app.listen({ host: '127.0.0.1', port: 0 });
    const team = await createTeam(t.app, t.creds.adminToken);
    await topup(t.app, t.creds.adminToken, team.userId, 100000);
    const client = new OpenAI({ apiKey: team.owner.apiKey, baseURL: `${address}/openai/v1`, maxRetries: 0 });
    const validArgs = new Ajv().compile(weatherParams);

    // A hand tool loop: auto calls the tool the user names, the result gets a text answer.
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Please call get_weather for Paris.' }];
    const first = await client.chat.completions.create({ model: MODEL, messages, tools, max_tokens: 200 });
    const choice = first.choices[0]!;
    assert.equal(choice.finish_reason, 'tool_calls');
    assert.equal(choice.message.content, null);
    assert.equal(choice.message.tool_calls?.length, 1, 'only get_weather is named');
    const tc = choice.message.tool_calls![0]!;
    assert.ok(tc.type === 'function');
    assert.equal(tc.function.name, 'get_weather');
    assert.ok(validArgs(JSON.parse(tc.function.arguments)), tc.function.arguments);
    messages.push(choice.message, { role: 'tool', tool_call_id: tc.id, content: '{"temperature": 18}' });
    const second = await client.chat.completions.create({ model: MODEL, messages, tools, max_tokens: 200 });
    assert.equal(second.choices[0]!.finish_reason, 'stop');
    assert.ok(second.choices[0]!.message.content!.length > 0);
    assert.equal(second.choices[0]!.message.tool_calls, undefined);

    // parallel_tool_calls: both named tools, or the first one only; "none" never calls.
    const both: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Use get_time and get_weather.' }];
    const parallel = await client.chat.completions.create({ model: MODEL, messages: both, tools, max_tokens: 200 });
    assert.deepEqual(parallel.choices[0]!.message.tool_calls!.map((c) => c.type === 'function' && c.function.name), ['get_weather', 'get_time']);
    const single = await client.chat.completions.create({ model: MODEL, messages: both, tools, parallel_tool_calls: false, max_tokens: 200 });
    assert.equal(single.choices[0]!.message.tool_calls!.length, 1);
    const none = await client.chat.completions.create({ model: MODEL, messages: both, tools, tool_choice: 'none', max_tokens: 50 });
    assert.equal(none.choices[0]!.finish_reason, 'stop');
    assert.ok(none.choices[0]!.message.content);

    // The stream helper accumulates a named tool call sent in fragments: same as the whole answer.
    const named = { model: MODEL, messages: [{ role: 'user' as const, content: 'weather?' }], tools, tool_choice: { type: 'function' as const, function: { name: 'get_weather' } }, max_tokens: 200 };
    const whole = await client.chat.completions.create(named);
    const runner = client.chat.completions.stream(named);
    let fragments = 0;
    runner.on('chunk', (c) => { if (c.choices[0]?.delta.tool_calls?.[0]?.function?.arguments) fragments++; });
    const final = await runner.finalChatCompletion();
    assert.ok(fragments > 1, `arguments came in ${fragments} fragments`);
    assert.equal(final.choices[0]!.finish_reason, 'tool_calls');
    const streamed = final.choices[0]!.message.tool_calls![0]!;
    const expected = whole.choices[0]!.message.tool_calls![0]!;
    assert.ok(streamed.type === 'function' && expected.type === 'function');
    assert.equal(streamed.id, expected.id);
    assert.equal(streamed.function.name, 'get_weather');
    assert.equal(streamed.function.arguments, expected.function.arguments);

    // Structured output through parse(): the content is parsed as JSON and matches the schema.
    const when = {
      type: 'object', additionalProperties: false, required: ['city', 'days'],
      properties: { city: { type: 'string' }, days: { type: 'array', minItems: 2, maxItems: 4, items: { $ref: '#/$defs/day' } } },
      $defs: { day: { type: 'object', additionalProperties: false, required: ['date', 'high'], properties: { date: { type: 'string', format: 'date' }, high: { type: 'integer', minimum: -40, maximum: 50 } } } },
    };
    const parsed = await client.chat.completions.parse({
      model: MODEL, messages: [{ role: 'user', content: 'Forecast for Oslo' }], max_tokens: 300,
      response_format: { type: 'json_schema', json_schema: { name: 'forecast', schema: when, strict: true } },
    });
    const value = parsed.choices[0]!.message.parsed as { city: string; days: Array<{ date: string; high: number }> };
    const checker = new Ajv({ strict: false });
    (addFormats as unknown as (a: Ajv) => void)(checker);
    assert.ok(checker.validate(when, value), JSON.stringify(value));

    // Logprobs: one entry per token, the top alternatives asked for, most likely first.
    const lp = await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'hello' }], logprobs: true, top_logprobs: 3, max_tokens: 12 });
    const content = lp.choices[0]!.logprobs!.content!;
    assert.equal(content.map((c) => c.token).join(''), lp.choices[0]!.message.content);
    assert.equal(content.length, lp.usage!.completion_tokens);
    for (const c of content) {
      assert.equal(c.top_logprobs.length, 3);
      assert.ok(c.logprob <= 0 && c.top_logprobs[0]!.logprob >= c.top_logprobs[2]!.logprob);
      assert.deepEqual(c.bytes, [...Buffer.from(c.token)]);
    }

    // n choices, differing; temperature 0 is greedy (one answer whatever the seed); a seed repeats.
    const prompt = [{ role: 'user' as const, content: 'Tell me about rivers.' }];
    const many = await client.chat.completions.create({ model: MODEL, messages: prompt, n: 3, max_tokens: 20 });
    assert.equal(many.choices.length, 3);
    assert.equal(new Set(many.choices.map((c) => c.message.content)).size, 3);
    const text = async (extra: Partial<OpenAI.ChatCompletionCreateParamsNonStreaming>) =>
      (await client.chat.completions.create({ model: MODEL, messages: prompt, max_tokens: 20, ...extra })).choices[0]!.message.content;
    assert.equal(await text({ temperature: 0, seed: 1 }), await text({ temperature: 0, seed: 2 }));
    assert.equal(await text({ temperature: 1.5, seed: 7 }), await text({ temperature: 1.5, seed: 7 }));
    assert.notEqual(await text({ temperature: 1.5, seed: 7 }), await text({ temperature: 1.5, seed: 8 }));
    assert.notEqual(await text({ temperature: 0, seed: 7 }), await text({ temperature: 1.9, seed: 7 }));

    // stop: the text ends before the first stop sequence, and usage counts what is left.
    const free = await client.chat.completions.create({ model: MODEL, messages: prompt, max_tokens: 40, seed: 3 });
    const words = free.choices[0]!.message.content!.split(' ');
    const stop = ` ${words[3]}`;
    const stopped = await client.chat.completions.create({ model: MODEL, messages: prompt, max_tokens: 40, seed: 3, stop: [stop, 'zzz'] });
    const cut = free.choices[0]!.message.content!.slice(0, free.choices[0]!.message.content!.indexOf(stop));
    assert.equal(stopped.choices[0]!.message.content, cut);
    assert.equal(stopped.choices[0]!.finish_reason, 'stop');
    assert.ok(stopped.usage!.completion_tokens < free.usage!.completion_tokens);
  } finally {
    await t.close();
  }
});
