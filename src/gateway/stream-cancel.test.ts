// A stream cut by the client is billed for what the upstream produced, not for the worst case.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp } from '../../test/helpers/app.ts';
import { as } from '../../test/helpers/http.ts';
import { createTeam, topup } from '../../test/helpers/factories.ts';
import { until } from '../../test/helpers/wait.ts';

test('a client that hangs up mid-stream pays for the tokens produced so far', async () => {
  const t = await buildTestApp({ env: { GANTRY_SIM_TTFT_MS: '0', GANTRY_SIM_TOKENS_PER_S: '200' } });
  try {
    const address = await t.app.listen({ host: '127.0.0.1', port: 0 });
    const team = await createTeam(t.app, t.creds.adminToken);
    await topup(t.app, t.creds.adminToken, team.userId, 100000);
    const ac = new AbortController();
    const res = await fetch(`${address}/openai/v1/chat/completions`, {
      method: 'POST', signal: ac.signal,
      headers: { authorization: `Bearer ${team.owner.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gantry/sim-chat-large', messages: [{ role: 'user', content: 'go on' }], max_tokens: 2000, ignore_eos: true, stream: true }),
    });
    assert.equal(res.status, 200);
    const reader = res.body!.getReader();
    let received = '';
    while ((received.match(/data: /g) ?? []).length < 6) received += new TextDecoder().decode((await reader.read()).value);
    ac.abort();
    await reader.cancel().catch(() => {});
    const u = as(t.app, team.owner.apiKey);
    const now = Math.floor(t.clock.nowMs() / 1000);
    // the server sees the hang-up, then records what was produced: look at the bills until it is there
    let row: any;
    await until('the cut stream billed', async () => {
      const bills = await u.get('/openapi/v1/billing/apikey/bill/list', { cycleType: 'Day', startTime: now - 3600, endTime: now + 60 });
      row = bills.body.bills.find((b: any) => b.productName === 'gantry/sim-chat-large');
      return row !== undefined;
    }, { limitMs: 5000, everyMs: 100 });
    const produced = Number(row.billNum1);
    assert.ok(produced >= 4, `at least the tokens the client saw: ${produced}`);
    assert.ok(produced < 2000, `not the worst case: ${produced}`);
    assert.equal((await u.get('/openapi/v1/billing/balance/detail')).body.pendingCharges, '0', 'the reservation was released');
  } finally {
    await t.close();
  }
});
