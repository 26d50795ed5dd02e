// Request bodies: each route family has its own size limit (config, 413 in the unified body
// before the body is read), and bodies of a megabyte or more are parsed off the main thread
// with the same answers as small ones (invalid JSON, prototype poisoning, whitespace only).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp } from '../../test/helpers/app.ts';
import { ConfigError, loadConfig } from '../config.ts';
import { poisoned } from './json-parse-worker.ts';

const MiB = 1024 * 1024;

test('body limits are settings: 8 MiB for the model routes, 1 MiB for every other by default', () => {
  assert.deepEqual(loadConfig({}).bodyLimits, { llm: 8 * MiB, default: MiB });
  assert.deepEqual(loadConfig({ GANTRY_BODY_LIMIT_LLM_MB: '32', GANTRY_BODY_LIMIT_DEFAULT_MB: '0.5' }).bodyLimits, { llm: 32 * MiB, default: MiB / 2 });
  assert.throws(() => loadConfig({ GANTRY_BODY_LIMIT_LLM_MB: 'lots', GANTRY_BODY_LIMIT_DEFAULT_MB: '0' }), (e: unknown) => {
    assert.ok(e instanceof ConfigError);
    assert.equal(e.problems.length, 2);
    assert.match(e.problems[0]!, /GANTRY_BODY_LIMIT_LLM_MB must be a number of MiB/);
    return true;
  });
});

test('each family has its limit: 413 PAYLOAD_TOO_LARGE in the unified body (and OpenAI\'s error on model routes)', async () => {
  const t = await buildTestApp({ env: { GANTRY_SIM_TTFT_MS: '0', GANTRY_SIM_TOKENS_PER_S: '1000000' } });
  try {
    const post = (url: string, payload: string, token: string) => t.app.inject({ method: 'POST', url, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, payload });
    // 1.5 MB is too large for a management route, and fine for a model route.
    const model = JSON.stringify({ id: 'acme/x', title: 'X', description: 'd'.repeat(1.5 * MiB), contextSize: 10, inputTokenPricePerM: 1, outputTokenPricePerM: 1, status: 'available', upstream: 'sim' });
    const admin = await post('/admin/v1/models', model, t.creds.adminToken);
    assert.equal(admin.statusCode, 413);
    const body = JSON.parse(admin.body);
    assert.deepEqual(Object.keys(body).sort(), ['code', 'message', 'metadata', 'reason']);
    assert.equal(body.reason, 'PAYLOAD_TOO_LARGE');
    assert.equal(body.message, 'the request body is larger than this route accepts');
    const team = await post('/openapi/v1/user/team/budget', JSON.stringify({ pad: 'p'.repeat(1.1 * MiB) }), t.creds.apiKey);
    assert.equal(team.statusCode, 413);

    // One word of 1.5 MB is one token of the simulator: served (and parsed off the main thread).
    // TPM counts bytes / 4 up front: lift it for this team.
    const tpm = await t.app.inject({ method: 'PUT', url: `/admin/v1/teams/${t.creds.userId}/quotas`, headers: { authorization: `Bearer ${t.creds.adminToken}`, 'content-type': 'application/json' }, payload: { model: 'gantry/sim-chat-large', quotaType: 'TPM', currentQuota: '100000000' } });
    assert.equal(tpm.statusCode, 200, tpm.body);
    const oneWord = JSON.stringify({ model: 'gantry/sim-chat-large', messages: [{ role: 'user', content: 'w'.repeat(1.5 * MiB) }], max_tokens: 5 });
    const served = await post('/openai/v1/chat/completions', oneWord, t.creds.apiKey);
    assert.equal(served.statusCode, 200, served.body.slice(0, 300));
    assert.equal(JSON.parse(served.body).usage.prompt_tokens, 3 + 3 + 1);
    const huge = await post('/openai/v1/chat/completions', JSON.stringify({ model: 'gantry/sim-chat-large', messages: [{ role: 'user', content: 'w'.repeat(8 * MiB) }] }), t.creds.apiKey);
    assert.equal(huge.statusCode, 413);
    const err = JSON.parse(huge.body);
    assert.equal(err.reason, 'PAYLOAD_TOO_LARGE');
    assert.equal(err.error.type, 'invalid_request_error');
    assert.equal(err.error.code, 'payload_too_large');
  } finally {
    await t.close();
  }
});

test('limits follow the settings', async () => {
  const t = await buildTestApp({ env: { GANTRY_BODY_LIMIT_LLM_MB: '0.05', GANTRY_BODY_LIMIT_DEFAULT_MB: '0.01' } });
  try {
    const post = (url: string, payload: unknown, token: string) => t.app.inject({ method: 'POST', url, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, payload: JSON.stringify(payload) });
    const chat = (n: number) => ({ model: 'gantry/sim-chat-small', messages: [{ role: 'user', content: 'w'.repeat(n) }], max_tokens: 1 });
    assert.equal((await post('/openai/v1/chat/completions', chat(30_000), t.creds.apiKey)).statusCode, 200);
    assert.equal((await post('/openai/v1/chat/completions', chat(60_000), t.creds.apiKey)).statusCode, 413);
    const topup = (n: number) => ({ amount: 1, idempotencyKey: 'k'.repeat(n) });
    assert.equal((await post(`/admin/v1/teams/${t.creds.userId}/topups`, topup(20_000), t.creds.adminToken)).statusCode, 413);
  } finally {
    await t.close();
  }
});

test('a body of a megabyte or more is judged like a small one: invalid JSON, prototype poisoning, whitespace only', async () => {
  const t = await buildTestApp();
  try {
    const post = (payload: string) => t.app.inject({ method: 'POST', url: '/openai/v1/chat/completions', headers: { authorization: `Bearer ${t.creds.apiKey}`, 'content-type': 'application/json' }, payload });
    const pad = ' '.repeat(MiB);
    const same = async (small: string) => {
      const a = await post(small);
      const b = await post(small + pad);
      assert.equal(b.statusCode, a.statusCode, small);
      assert.deepEqual(JSON.parse(b.body), JSON.parse(a.body), small);
      return JSON.parse(a.body);
    };
    const invalid = await same('{"model": "gantry/sim-chat-small", "messages": [');
    assert.equal(invalid.reason, 'INVALID_REQUEST_BODY');
    assert.equal(invalid.message, 'the body is not valid JSON');
    const proto = await same('{"model": "gantry/sim-chat-small", "messages": [{"role": "user", "content": "x", "__proto__": {"admin": true}}]}');
    assert.equal(proto.message, 'the body is not valid JSON');
    const escaped = await same('{"model": "gantry/sim-chat-small", "messages": [{"role": "user", "content": "x", "\\u005f_proto__": {}}]}');
    assert.equal(escaped.message, 'the body is not valid JSON');
    const ctor = await same('{"model": "gantry/sim-chat-small", "messages": [{"role": "user", "content": "x", "constructor": {"prototype": {}}}]}');
    assert.equal(ctor.message, 'the body is not valid JSON');
    const blank = await same('  \n ');
    assert.equal(blank.metadata.field, 'body');
    // a `constructor` key that is not an object with a prototype is an ordinary field
    assert.equal(poisoned({ constructor: 'x', a: [{ constructor: { name: 1 } }] }), false);
    assert.equal(poisoned(JSON.parse('[{"a": {"__proto__": 1}}]')), true);
  } finally {
    await t.close();
  }
});
