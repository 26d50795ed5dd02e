// Issue 29: one tenant's body must not fail another's request. Every JSON body is refused
// past 128 levels of nesting (lib/json-depth.ts) with a 400 naming the rule, whether it is
// parsed here or, from a megabyte on, on the shared parsing thread, which a poison body no
// longer kills; and the JSON Schemas a model request carries are no way around it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp, type TestApp } from '../../test/helpers/app.ts';
import { createTeam, topup } from '../../test/helpers/factories.ts';
import { as } from '../../test/helpers/http.ts';

const MiB = 1024 * 1024;
const RULE = 'JSON nesting depth at most 128';
const arrays = (n: number) => '['.repeat(n) + ']'.repeat(n);
const chat = (model: string, extra = '', content = 'hi') =>
  `{"model":"${model}","messages":[{"role":"user","content":"${content}"}],"max_tokens":2${extra}}`;

async function withApp(fn: (t: TestApp, post: (url: string, payload: string, key?: string) => Promise<{ status: number; body: any }>) => Promise<void>) {
  const t = await buildTestApp({ env: { GANTRY_SIM_TTFT_MS: '0', GANTRY_SIM_TOKENS_PER_S: '1000000' } });
  const post = async (url: string, payload: string, key = t.creds.apiKey) => {
    const r = await t.app.inject({ method: 'POST', url, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, payload });
    return { status: r.statusCode, body: JSON.parse(r.body) };
  };
  try {
    await fn(t, post);
  } finally {
    await t.close();
  }
}

function refusedForDepth(r: { status: number; body: any }, reason: string, where: string): void {
  assert.equal(r.status, 400, `${where}: ${JSON.stringify(r.body).slice(0, 300)}`);
  assert.equal(r.body.reason, reason, where);
  assert.equal(r.body.metadata.rule, RULE, where);
}

test('a body nested 3.5M deep (7 MB, parsed off the main thread) is a 400, and the big bodies of another team parsed beside it are all answered', { timeout: 120_000 }, async () => {
  await withApp(async (t, post) => {
    const other = await createTeam(t.app, t.creds.adminToken, 'other');
    await topup(t.app, t.creds.adminToken, other.userId, 100_000_000);
    const tpm = await as(t.app, t.creds.adminToken).put(`/admin/v1/teams/${other.userId}/quotas`, { model: 'gantry/sim-chat-large', quotaType: 'TPM', currentQuota: '100000000' });
    assert.equal(tpm.status, 200, JSON.stringify(tpm.body));
    const poison = arrays(3_500_000);
    // the poison first, so that the other bodies wait for the parser behind it
    const poisoned = post('/openai/v1/chat/completions', poison);
    const valid = Array.from({ length: 7 }, (_, i) =>
      post('/openai/v1/chat/completions', chat('gantry/sim-chat-large', '', `${i} ${'w'.repeat(1.2 * MiB)}`), other.owner.apiKey));
    refusedForDepth(await poisoned, 'INVALID_REQUEST_BODY', 'the poison body');
    assert.equal((await poisoned).body.error.type, 'invalid_request_error');
    const answers = await Promise.all(valid);
    assert.deepEqual(answers.map((a) => a.status), Array(7).fill(200), JSON.stringify(answers.find((a) => a.status !== 200)?.body));
    // on a management route the same body is too large (1 MiB); a smaller one is nested too deeply
    assert.equal((await post(`/admin/v1/teams/${other.userId}/topups`, poison, t.creds.adminToken)).status, 413);
    refusedForDepth(await post(`/admin/v1/teams/${other.userId}/topups`, arrays(300_000), t.creds.adminToken), 'INVALID_ARGUMENT', 'operator route');
    refusedForDepth(await post('/openapi/v1/user/team/check-budget', `{"a":${arrays(300_000)}}`), 'INVALID_ARGUMENT', 'account route');
    refusedForDepth(await post('/gpu-instance/openapi/v1/gpu/instance/create', `{"name":${arrays(129)}}`), 'VALIDATOR_PARAM', 'gpu route');
  });
});

test('a JSON Schema nested 20,000 levels (tool parameters, response_format) is a 400 naming the rule, not a 500', async () => {
  await withApp(async (_t, post) => {
    const schema = '{"type":"array","items":'.repeat(20_000) + '{}' + '}'.repeat(20_000);
    assert.ok(schema.length < MiB, 'parsed on the main thread');
    const formats = [
      `,"response_format":{"type":"json_schema","json_schema":{"name":"deep","schema":${schema}}}`,
      `,"tools":[{"type":"function","function":{"name":"deep","parameters":{"type":"object","properties":{"a":${schema}}}}}]`,
    ];
    for (const extra of formats) {
      refusedForDepth(await post('/openai/v1/chat/completions', chat('gantry/sim-chat-small', extra)), 'INVALID_REQUEST_BODY', extra.slice(0, 20));
    }
    // a schema nested as deep as real ones are is served
    const usual = '{"type":"object","properties":{"a":'.repeat(10) + '{"type":"string"}' + '}}'.repeat(10);
    const ok = await post('/openai/v1/chat/completions', chat('gantry/sim-chat-small', `,"response_format":{"type":"json_schema","json_schema":{"name":"usual","schema":${usual}}}`));
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
  });
});

test('a body nested exactly 128 levels is served, one of 129 refused: parsed here, or off the main thread', async () => {
  await withApp(async (t, post) => {
    const tpm = await as(t.app, t.creds.adminToken).put(`/admin/v1/teams/${t.creds.userId}/quotas`, { model: 'gantry/sim-chat-large', quotaType: 'TPM', currentQuota: '100000000' });
    assert.equal(tpm.status, 200, JSON.stringify(tpm.body));
    // the body is level 1: an extra field (passed to the upstream as sent) holding 127 more
    for (const content of ['hi', 'w'.repeat(1.5 * MiB)]) {
      const where = content.length > MiB ? 'over 1 MiB' : 'small';
      const at = await post('/openai/v1/chat/completions', chat('gantry/sim-chat-large', `,"x":${arrays(127)}`, content));
      assert.equal(at.status, 200, `${where}: ${JSON.stringify(at.body).slice(0, 300)}`);
      const past = await post('/openai/v1/chat/completions', chat('gantry/sim-chat-large', `,"x":${arrays(128)}`, content));
      refusedForDepth(past, 'INVALID_REQUEST_BODY', where);
      assert.equal(past.body.metadata.field, 'body', where);
      // brackets inside strings are text, however many
      const text = await post('/openai/v1/chat/completions', chat('gantry/sim-chat-large', '', `${'['.repeat(1000)}\\"${'{'.repeat(1000)}${content}`));
      assert.equal(text.status, 200, `${where}: ${JSON.stringify(text.body).slice(0, 300)}`);
    }
  });
});
