// The budget guarantee under concurrency: 200 requests at once against a key budget that
// covers about 50 worst cases. Settled spend never exceeds the budget, and every refusal is
// 403 BUDGET_EXCEEDED. Runs on the in-process counters, and on Redis when TEST_REDIS_URL is set.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp } from '../../test/helpers/app.ts';
import { as } from '../../test/helpers/http.ts';
import { createTeam, topup } from '../../test/helpers/factories.ts';

const backends: Array<{ name: string; env: Record<string, string> }> = [{ name: 'in-process counters', env: {} }];
if (process.env.TEST_REDIS_URL) backends.push({ name: 'Redis counters', env: { REDIS_URL: process.env.TEST_REDIS_URL } });

for (const backend of backends) {
  test(`200 concurrent requests never overspend a key budget (${backend.name})`, async () => {
    const t = await buildTestApp({ env: { GANTRY_SIM_TTFT_MS: '5', GANTRY_SIM_TOKENS_PER_S: '20000', ...backend.env } });
    try {
      const admin = as(t.app, t.creds.adminToken);
      const team = await createTeam(t.app, t.creds.adminToken);
      await topup(t.app, t.creds.adminToken, team.userId, 1_000_000);
      // 1 unit per token: a request's cost in units is its token count.
      const model = `acme/unit-${Math.random().toString(36).slice(2, 8)}`;
      assert.equal((await admin.post('/admin/v1/models', { id: model, title: 'Unit', contextSize: 4096, inputTokenPricePerM: 1000000, outputTokenPricePerM: 1000000, status: 'available', upstream: 'sim' })).status, 200);
      const dev = team.members.Developer;
      const owner = as(t.app, team.owner.apiKey);
      assert.equal((await owner.put('/openapi/v1/user/team/key-budget', { member_id: dev.memberId, key_id: dev.keyId, budget_type: 'Recurring', budget_limit: 10000, cycle: 'Monthly' })).status, 200);
      const body = JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }], max_tokens: 150, ignore_eos: true });
      // Worst case: prompt bound 41 (33 bytes of JSON + 8) + 150 output = 191 units → 52 fit in 10000.
      const results = await Promise.all(Array.from({ length: 200 }, () => t.app.inject({
        method: 'POST', url: '/openai/v1/chat/completions', payload: body,
        headers: { authorization: `Bearer ${dev.apiKey}`, 'content-type': 'application/json' },
      })));
      const ok = results.filter((r) => r.statusCode === 200).map((r) => JSON.parse(r.body));
      const refused = results.filter((r) => r.statusCode !== 200);
      for (const r of refused) {
        assert.equal(r.statusCode, 403, r.body);
        const b = JSON.parse(r.body);
        assert.equal(b.reason, 'BUDGET_EXCEEDED');
        assert.equal(b.metadata.scope, 'key');
      }
      const spent = ok.reduce((s, b) => s + b.usage.prompt_tokens + b.usage.completion_tokens, 0);
      assert.ok(spent <= 10000, `settled spend ${spent} exceeds the budget`);
      assert.ok(ok.length >= 52, `the budget was used: ${ok.length} admitted`); // at least the worst cases that fit
      assert.ok(refused.length > 0);
      const kb = (await owner.get('/openapi/v1/user/team/key-budget-list', { member_id: dev.memberId })).body.key_budgets.find((k: any) => k.key_id === dev.keyId);
      assert.equal(kb.used, spent, 'the ledger holds exactly what the responses reported');
      assert.ok(kb.remaining >= 0);
      // The API-key bill (written by the batched path) carries the exact token counts and prices.
      const now = Math.floor(t.clock.nowMs() / 1000);
      const bills = (await owner.get('/openapi/v1/billing/apikey/bill/list', { cycleType: 'Day', category: 'llm', startTime: now - 3600, endTime: now + 60 })).body.bills;
      const row = bills.find((b: any) => b.ownerID === dev.keyId && b.productName === model);
      assert.equal(row.billNum0, String(ok.reduce((s, b) => s + b.usage.prompt_tokens, 0)));
      assert.equal(row.billNum1, String(ok.reduce((s, b) => s + b.usage.completion_tokens, 0)));
      assert.equal(row.basePrice0, '1000000');
      assert.equal(row.amount, String(spent));
      const bal = (await owner.get('/openapi/v1/billing/balance/detail')).body;
      assert.equal(bal.pendingCharges, '0', 'every reservation was released');
    } finally {
      await t.close();
    }
  });
}
