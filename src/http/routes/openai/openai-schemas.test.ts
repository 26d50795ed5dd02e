// Real answers validate against OpenAI's published schemas (test/fixtures/openai-openapi-excerpt.json,
// an excerpt of openai/openai-openapi), which strictly typed clients decode by: chat answers
// plain, with tools, logprobs, structured output and n; every stream chunk, tool calls and
// the usage chunk included; completions; the model list and one model; embeddings.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { buildTestApp } from '../../../../test/helpers/app.ts';
import { as } from '../../../../test/helpers/http.ts';
import { createTeam, topup } from '../../../../test/helpers/factories.ts';

const excerpt = JSON.parse(readFileSync(new URL('../../../../test/fixtures/openai-openapi-excerpt.json', import.meta.url), 'utf8'));
const ajv = new Ajv({ strict: false, allErrors: true, logger: false });
(addFormats as unknown as (a: Ajv) => void)(ajv);
ajv.addSchema(excerpt);

function conforms(component: string, value: unknown, what: string): void {
  const validate = ajv.getSchema(`${excerpt.$id}#/$defs/${component}`);
  assert.ok(validate, component);
  assert.ok(validate(value), `${what} is not a ${component}: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(value)}`);
}

function events(body: string): unknown[] {
  const out: unknown[] = [];
  for (const block of body.split('\n\n')) {
    const data = block.trim().replace(/^data: /, '');
    if (data && data !== '[DONE]') out.push(JSON.parse(data));
  }
  return out;
}

const MODEL = 'gantry/sim-chat-small';
const messages = [{ role: 'user', content: 'Use get_weather and get_time for Paris, please.' }];
const tools = [
  { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' }, unit: { enum: ['c', 'f'] } }, required: ['city', 'unit'] } } },
  { type: 'function', function: { name: 'get_time', parameters: { type: 'object', properties: { zone: { type: 'string' } }, required: ['zone'] } } },
];
const schema = { type: 'object', required: ['city', 'when'], properties: { city: { type: 'string' }, when: { type: 'string', format: 'date-time' } }, additionalProperties: false };

test('answers validate against OpenAI\'s published schemas', async () => {
  const t = await buildTestApp({ env: { GANTRY_SIM_TTFT_MS: '0', GANTRY_SIM_TOKENS_PER_S: '2000' } });
  try {
    const team = await createTeam(t.app, t.creds.adminToken);
    await topup(t.app, t.creds.adminToken, team.userId, 100000);
    const api = as(t.app, team.owner.apiKey);
    const chats: Array<[string, Record<string, unknown>]> = [
      ['plain', {}],
      ['tools', { tools }],
      ['logprobs and n', { logprobs: true, top_logprobs: 3, n: 2, stop: ['.'] }],
      ['json_schema', { response_format: { type: 'json_schema', json_schema: { name: 'when', schema, strict: true } } }],
      ['json_object', { response_format: { type: 'json_object' } }],
      ['length', { max_tokens: undefined, max_completion_tokens: 2 }],
    ];
    for (const [what, extra] of chats) {
      const res = await api.post('/openai/v1/chat/completions', { model: MODEL, messages, max_tokens: 80, ...extra });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      conforms('CreateChatCompletionResponse', res.body, `chat (${what})`);
      const stream = await t.app.inject({
        method: 'POST', url: '/openai/v1/chat/completions', headers: { authorization: `Bearer ${team.owner.apiKey}`, 'content-type': 'application/json' },
        payload: JSON.stringify({ model: MODEL, messages, max_tokens: 80, ...extra, stream: true, stream_options: { include_usage: true } }),
      });
      const chunks = events(stream.body);
      assert.ok(chunks.length > 2);
      for (const c of chunks) conforms('CreateChatCompletionStreamResponse', c, `chat chunk (${what})`);
      const last = chunks.at(-1) as { choices: unknown[]; usage: unknown };
      assert.deepEqual(last.choices, []);
      assert.deepEqual(last.usage, res.body.usage, `${what}: the stream's usage is the answer's`);
      for (const c of chunks.slice(0, -1)) assert.equal((c as { usage: unknown }).usage, null, 'chunks before the usage chunk carry usage: null');
    }
    // Streamed completion chunks carry finish_reason null, which OpenAI's (shared) schema
    // does not allow, although OpenAI sends it: only whole completions are checked.
    const comp = await api.post('/openai/v1/completions', { model: MODEL, prompt: 'Once upon a time', max_tokens: 20, logprobs: 2, n: 2 });
    assert.equal(comp.status, 200);
    conforms('CreateCompletionResponse', comp.body, 'completion');
    const list = await api.get('/openai/v1/models');
    conforms('ListModelsResponse', list.body, 'model list');
    conforms('Model', (await api.get(`/openai/v1/models/${MODEL}`)).body, 'model');
    const emb = await api.post('/openai/v1/embeddings', { model: 'gantry/sim-embed', input: ['river', 'stone'], encoding_format: 'float' });
    conforms('CreateEmbeddingResponse', emb.body, 'embeddings');
  } finally {
    await t.close();
  }
});
