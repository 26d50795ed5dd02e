// Tool definitions and output schemas are prompt text: they count in a request's worst case,
// so a key budget that cannot pay for them refuses the request before it reaches the model.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp } from '../../test/helpers/app.ts';
import { as } from '../../test/helpers/http.ts';
import { createTeam, topup } from '../../test/helpers/factories.ts';

test('tools and response_format count in the worst case a budget must cover', async () => {
  const t = await buildTestApp();
  try {
    const admin = as(t.app, t.creds.adminToken);
    const team = await createTeam(t.app, t.creds.adminToken);
    await topup(t.app, t.creds.adminToken, team.userId, 1_000_000);
    const model = `acme/unit-${Math.random().toString(36).slice(2, 8)}`; // 1 unit per token
    assert.equal((await admin.post('/admin/v1/models', { id: model, title: 'Unit', contextSize: 100_000, inputTokenPricePerM: 1000000, outputTokenPricePerM: 1000000, status: 'available', upstream: 'sim' })).status, 200);
    const dev = team.members.Developer;
    const owner = as(t.app, team.owner.apiKey);
    assert.equal((await owner.put('/openapi/v1/user/team/key-budget', { member_id: dev.memberId, key_id: dev.keyId, budget_type: 'One-time', budget_limit: 10000 })).status, 200);
    const key = as(t.app, dev.apiKey);
    const messages = [{ role: 'user', content: 'hi' }];
    const big = 'x'.repeat(12_000); // 12,000 bytes: past the 10,000 units the key may spend
    const plain = await key.post('/openai/v1/chat/completions', { model, messages, max_tokens: 5 });
    assert.equal(plain.status, 200, JSON.stringify(plain.body));

    const tool = { type: 'function', function: { name: 'lookup', description: big, parameters: { type: 'object', properties: {} } } };
    const withTools = await key.post('/openai/v1/chat/completions', { model, messages, max_tokens: 5, tools: [tool] });
    assert.equal(withTools.status, 403, JSON.stringify(withTools.body));
    assert.equal(withTools.body.reason, 'BUDGET_EXCEEDED');

    const schema = { type: 'json_schema', json_schema: { name: 's', schema: { type: 'object', description: big, properties: {} } } };
    const withSchema = await key.post('/openai/v1/chat/completions', { model, messages, max_tokens: 5, response_format: schema });
    assert.equal(withSchema.status, 403, JSON.stringify(withSchema.body));
    assert.equal(withSchema.body.reason, 'BUDGET_EXCEEDED');
  } finally {
    await t.close();
  }
});
