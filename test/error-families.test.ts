// Every route answers only with the reasons of its family (compat.md): each declares its
// family, and whatever reason the domain throws is told in that family's words.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { REASON_STATUS, type Reason } from '../src/lib/errors.ts';
import { COMMON_REASONS, FAMILY_TABLE, mayAnswer, reasonInFamily } from '../src/lib/error-families.ts';
import { buildTestApp } from './helpers/app.ts';
import { call } from './helpers/http.ts';

const ALL_REASONS = Object.keys(REASON_STATUS) as Reason[];

test('every route declares a family, and every reason it can be handed maps into that family', async () => {
  const t = await buildTestApp();
  try {
    const families = new Set<string>();
    for (const r of t.routes) {
      assert.ok(r.family, `${r.method} ${r.url} declares no family`);
      families.add(r.family);
      for (const reason of ALL_REASONS) {
        const told = reasonInFamily(r.family, reason, 'productCategory');
        assert.ok(mayAnswer(r.family, told), `${r.method} ${r.url} (${r.family}) would answer ${told} for ${reason}`);
        assert.ok(mayAnswer(r.family, reasonInFamily(r.family, reason)), `${r.method} ${r.url}: ${reason}`);
      }
    }
    assert.deepEqual([...families].sort(), ['account', 'anthropic', 'billing', 'gpu', 'llm', 'media', 'operator', 'serverless']);
  } finally {
    await t.close();
  }
});

test('a family keeps its own reasons and tells foreign ones by their kind', () => {
  for (const [family, table] of Object.entries(FAMILY_TABLE)) {
    for (const reason of table.reasons) assert.equal(reasonInFamily(family as keyof typeof FAMILY_TABLE, reason), reason);
  }
  for (const reason of COMMON_REASONS) assert.equal(reasonInFamily('gpu', reason), reason);
  assert.equal(reasonInFamily('gpu', 'NOT_FOUND'), 'RESOURCE_NOT_FOUND');
  assert.equal(reasonInFamily('gpu', 'INVALID_STATE'), 'VALIDATOR_PARAM');
  assert.equal(reasonInFamily('gpu', 'INVALID_ARGUMENT'), 'VALIDATOR_PARAM');
  assert.equal(reasonInFamily('llm', 'FORBIDDEN'), 'ACCESS_DENY');
  assert.equal(reasonInFamily('llm', 'UNAUTHORIZED'), 'INVALID_API_KEY');
  assert.equal(reasonInFamily('billing', 'INVALID_ARGUMENT', 'startTime'), 'INVALID_BILL_CYCLE');
  assert.equal(reasonInFamily('billing', 'INVALID_ARGUMENT', 'productCategory'), 'INVALID_PRODUCT_CATEGORY');
  assert.equal(reasonInFamily('account', 'VALIDATOR_PARAM'), 'INVALID_ARGUMENT');
});

test('answers through HTTP carry the route family\'s reasons', async () => {
  const t = await buildTestApp();
  try {
    const key = t.creds.apiKey;
    // billing: a bad period and a bad product filter
    const cycle = await call(t.app, 'GET', '/openapi/v1/billing/bill/list', { token: key, query: { cycleType: 'Year', productCategory: 'gpu' } });
    assert.equal(cycle.status, 400);
    assert.equal(cycle.body.reason, 'INVALID_BILL_CYCLE');
    const missing = await call(t.app, 'GET', '/openapi/v1/billing/apikey/bill/list', { token: key, query: { cycleType: 'Day' } });
    assert.equal(missing.status, 400);
    assert.ok(FAMILY_TABLE.billing.reasons.includes(missing.body.reason), missing.body.reason);
    // gpu: a bad body and a missing instance are 400 VALIDATOR_PARAM / RESOURCE_NOT_FOUND
    const body = await call(t.app, 'POST', '/gpu-instance/openapi/v1/gpu/instance/start', { token: key, body: {} });
    assert.equal(body.status, 400);
    assert.equal(body.body.reason, 'VALIDATOR_PARAM');
    assert.equal(body.body.metadata.field, 'instanceId');
    const gone = await call(t.app, 'POST', '/gpu-instance/openapi/v1/gpu/instance/start', { token: key, body: { instanceId: 'ins_nope' } });
    assert.equal(gone.status, 400);
    assert.equal(gone.body.reason, 'RESOURCE_NOT_FOUND');
    // llm: a bad key is INVALID_API_KEY with OpenAI's error member
    const llm = await call(t.app, 'GET', '/openai/v1/models', { token: 'sk_not_a_real_key_at_all_000000' });
    assert.equal(llm.status, 401);
    assert.equal(llm.body.reason, 'INVALID_API_KEY');
    assert.equal(llm.body.error.code, 'invalid_api_key');
  } finally {
    await t.close();
  }
});
