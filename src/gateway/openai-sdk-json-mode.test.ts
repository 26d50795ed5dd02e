// JSON mode with the schema in the prompt: the official `openai` package asks the simulator
// for `response_format: {type: "json_object"}` with a schema written in a system message or a
// ```json fence of the user's, and gets an object that follows it (required properties, types,
// enums, nested objects and arrays), checked with ajv. Without a schema anywhere, any object.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { Ajv } from 'ajv';
import { buildTestApp } from '../../test/helpers/app.ts';
import { createTeam, topup } from '../../test/helpers/factories.ts';

const SCHEMA = {
  type: 'object',
  required: ['city', 'population', 'status', 'coordinates', 'districts'],
  additionalProperties: false,
  properties: {
    city: { type: 'string', minLength: 2 },
    population: { type: 'integer', minimum: 1000, maximum: 40000000 },
    status: { type: 'string', enum: ['capital', 'regional', 'village'] },
    coordinates: { type: 'object', required: ['lat', 'lon'], additionalProperties: false, properties: { lat: { type: 'number', minimum: -90, maximum: 90 }, lon: { type: 'number', minimum: -180, maximum: 180 } } },
    districts: { type: 'array', minItems: 2, maxItems: 4, items: { type: 'object', required: ['name', 'area_km2'], additionalProperties: false, properties: { name: { type: 'string' }, area_km2: { type: 'number', exclusiveMinimum: 0 } } } },
    founded: { type: 'integer' },
  },
};

test('JSON mode follows a schema given in the prompt (system message, or a ```json fence), through the openai package', async () => {
  const t = await buildTestApp({ env: { GANTRY_SIM_TTFT_MS: '0', GANTRY_SIM_TOKENS_PER_S: '1000000' } });
  try {
    const address = await t.app.listen({ host: '127.0.0.1', port: 0 });
    const team = await createTeam(t.app, t.creds.adminToken);
    await topup(t.app, t.creds.adminToken, team.userId, 1_000_000);
    const client = new OpenAI({ apiKey: team.owner.apiKey, baseURL: `${address}/openai/v1`, maxRetries: 0 });
    const validate = new Ajv({ strict: false }).compile(SCHEMA);
    const ask = async (messages: OpenAI.ChatCompletionMessageParam[], seed: number) => {
      const r = await client.chat.completions.create({ model: 'gantry/sim-chat-small', messages, response_format: { type: 'json_object' }, seed, max_tokens: 2000 });
      assert.equal(r.choices[0]!.finish_reason, 'stop');
      return JSON.parse(r.choices[0]!.message.content!);
    };

    for (let seed = 0; seed < 5; seed++) {
      const inSystem = await ask([
        { role: 'system', content: `You describe cities. Answer with a JSON object matching this schema: ${JSON.stringify(SCHEMA)}` },
        { role: 'user', content: 'Describe Lyon.' },
      ], seed);
      assert.ok(validate(inSystem), `${JSON.stringify(inSystem)}: ${JSON.stringify(validate.errors)}`);
      const fenced = await ask([
        { role: 'user', content: `Describe Lyon. For example {"note": "not the schema"}.\nReply in JSON following this schema:\n\`\`\`json\n${JSON.stringify(SCHEMA, null, 2)}\n\`\`\`\nNothing else.` },
      ], seed);
      assert.ok(validate(fenced), `${JSON.stringify(fenced)}: ${JSON.stringify(validate.errors)}`);
    }

    // The latest instruction wins: a user message's schema over the system's.
    const other = { type: 'object', required: ['verdict'], additionalProperties: false, properties: { verdict: { type: 'boolean' } } };
    const latest = await ask([
      { role: 'system', content: `Schema: ${JSON.stringify(SCHEMA)}` },
      { role: 'user', content: `This time answer with ${JSON.stringify(other)}` },
    ], 1);
    assert.deepEqual(Object.keys(latest), ['verdict']);
    assert.equal(typeof latest.verdict, 'boolean');

    // No schema in the prompt: an object all the same (JSON mode's only promise).
    const free = await ask([{ role: 'user', content: 'Describe Lyon in JSON.' }], 1);
    assert.equal(typeof free, 'object');
    assert.ok(free !== null && !Array.isArray(free));
  } finally {
    await t.close();
  }
});
