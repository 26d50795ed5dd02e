// How usage becomes ledger charges: one usage event per request, one charge per group of
// like requests answered in the same second (same category, model, member, key and prices),
// each event pointing at the charge that covers it. What a user reads (bills, budgets) is the
// same as with a charge per request; a replay never charges a request twice.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import { buildTestApp, openTestStore } from '../../../test/helpers/app.ts';
import { as } from '../../../test/helpers/http.ts';
import { createTeam, topup } from '../../../test/helpers/factories.ts';
import type { Credentials } from '../bootstrap.ts';
import { getSetting } from '../../store/settings.ts';
import { ManualClock } from '../../lib/clock.ts';
import { standaloneCtx } from '../context.ts';
import { newId } from '../../lib/ids.ts';
import { unbalancedCharges, usageTotals } from '../../store/usage.ts';
import { recordUsage, usageCostMicro, type UsageRecord } from './record.ts';

test('like requests of one second share a charge; any difference in key, model, price, category or second splits it', async () => {
  const store = await openTestStore();
  try {
    const ctx = standaloneCtx(store.db, new ManualClock());
    const creds = (await getSetting<Credentials>(store.db, 'test_credentials'))!;
    const t0 = Date.UTC(2027, 0, 5, 10, 0, 7) + 120; // 10:00:07.120
    const rec = (over: Partial<UsageRecord> = {}): UsageRecord => ({
      requestId: newId('request'), teamId: creds.userId, memberId: creds.ownerMemberId, keyId: creds.keyId, model: 'gantry/sim-chat-small',
      endpoint: 'chat.completions', promptTokens: 10, completionTokens: 5, inputPricePerMUnits: 100n, outputPricePerMUnits: 200n,
      outcome: 'completed', durationMs: 1, atMs: t0, ...over,
    });
    const batch = [
      rec(), rec({ promptTokens: 7, atMs: t0 + 500 }), rec({ completionTokens: 9, atMs: t0 + 879 }), // one group: 10:00:07
      rec({ keyId: 'key_other' }), // another key
      rec({ model: 'gantry/sim-chat-large' }), // another model
      rec({ outputPricePerMUnits: 300n }), // another price (the catalogue changed mid-second)
      rec({ billing: 'batch' }), // a batch line: category batch
      rec({ atMs: t0 + 880 }), // 10:00:08.000: the next second
      rec({ cachedTokens: 4, cachedInputPricePerMUnits: 50n }), // another cached price
      rec({ promptTokens: 0, completionTokens: 0 }), // costs nothing: an event, no charge
    ];
    const before = await usageTotals(store.db, creds.userId);
    await recordUsage(ctx, batch);
    const after = await usageTotals(store.db, creds.userId);
    assert.equal(after.events - before.events, 10);
    assert.equal(after.ledgerCharges - before.ledgerCharges, 7);
    assert.equal(after.chargedRequests - before.chargedRequests, 9);
    assert.equal(BigInt(after.chargedMicro) - BigInt(before.chargedMicro), batch.reduce((n, r) => n + usageCostMicro(r), 0n));
    assert.equal(await unbalancedCharges(store.db, creds.userId), 0);

    const rows = (await store.db.execute(sql`
      select l.detail, l.category, l.created_at, l.amount_micro::text as amount from ledger_entries l
       where l.id = (select ledger_id from usage_events where request_id = ${batch[0]!.requestId})`) as unknown as { rows: Array<Record<string, any>> }).rows;
    assert.equal(rows.length, 1);
    const shared = rows[0]!;
    assert.deepEqual(shared.detail, { billNum0: '27', billNum1: '19', basePrice0: '100', basePrice1: '200', requests: '3' });
    assert.equal(new Date(shared.created_at).getTime(), t0 + 879, 'stamped when its last request was answered');
    assert.equal(shared.amount, String(27n * 100n + 19n * 200n));
    const cached = (await store.db.execute(sql`
      select l.detail from ledger_entries l where l.id = (select ledger_id from usage_events where request_id = ${batch[8]!.requestId})`) as unknown as { rows: Array<Record<string, any>> }).rows[0]!;
    assert.deepEqual(cached.detail, { billNum0: '10', billNum1: '5', basePrice0: '100', basePrice1: '200', cachedTokens: '4', cachedPrice: '50', requests: '1' });
    const free = (await store.db.execute(sql`select ledger_id from usage_events where request_id = ${batch[9]!.requestId}`) as unknown as { rows: Array<Record<string, any>> }).rows[0]!;
    assert.equal(free.ledger_id, null);
    const batchLine = (await store.db.execute(sql`
      select l.category, l.billing_method from ledger_entries l where l.id = (select ledger_id from usage_events where request_id = ${batch[6]!.requestId})`) as unknown as { rows: Array<Record<string, any>> }).rows[0]!;
    assert.deepEqual([batchLine.category, batchLine.billing_method], ['batch', 5]);

    // A replay (careful) of the same records and two new ones: only the new ones are added,
    // even when the batch repeats one of them.
    const fresh = [rec(), rec()];
    await recordUsage(ctx, [...batch, fresh[0]!, fresh[1]!, fresh[0]!], true);
    const replayed = await usageTotals(store.db, creds.userId);
    assert.equal(replayed.events - after.events, 2);
    assert.equal(replayed.requests, replayed.events, 'no request twice');
    assert.equal(replayed.chargedRequests - after.chargedRequests, 2);
    assert.equal(replayed.ledgerCharges - after.ledgerCharges, 1, 'the two new ones share a charge');
    assert.equal(await unbalancedCharges(store.db, creds.userId), 0);
  } finally {
    await store.close();
  }
});

test('a burst through the API: bills read exactly as the answers add up, with a charge per key and second', async () => {
  const t = await buildTestApp({ env: { GANTRY_SIM_TTFT_MS: '0', GANTRY_SIM_TOKENS_PER_S: '1000000' } });
  try {
    const team = await createTeam(t.app, t.creds.adminToken);
    await topup(t.app, t.creds.adminToken, team.userId, 1000);
    const owner = as(t.app, team.owner.apiKey);
    const keys = [team.owner, team.members.Developer];
    const N = 30;
    const answers = await Promise.all(Array.from({ length: N }, async (_, i) => {
      const k = keys[i % 2]!;
      const r = await as(t.app, k.apiKey).post('/openai/v1/chat/completions', {
        model: 'gantry/sim-chat-small', messages: [{ role: 'user', content: `request ${i}: ${'word '.repeat(i)}` }], max_tokens: 4 + (i % 7),
      });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return { keyId: k.keyId, usage: r.body.usage as { prompt_tokens: number; completion_tokens: number } };
    }));
    const totals = (await as(t.app, t.creds.adminToken).get(`/admin/v1/teams/${team.userId}/usage`)).body;
    assert.equal(totals.events, N);
    assert.equal(totals.chargedRequests, N, 'every request charged once');
    assert.equal(totals.chargedMicro, totals.costMicro);
    // The test's clock stands still: two keys, one second.
    assert.equal(totals.ledgerCharges, 2, `one charge per key and second (${totals.ledgerCharges})`);
    const now = Math.floor(t.clock.nowMs() / 1000);
    const bills = (await owner.get('/openapi/v1/billing/apikey/bill/list', { cycleType: 'Day', category: 'llm', startTime: now - 3600, endTime: now + 60 })).body.bills;
    for (const k of keys) {
      const mine = answers.filter((a) => a.keyId === k.keyId);
      const row = bills.find((b: { ownerID: string }) => b.ownerID === k.keyId);
      assert.equal(row.billNum0, String(mine.reduce((n, a) => n + a.usage.prompt_tokens, 0)));
      assert.equal(row.billNum1, String(mine.reduce((n, a) => n + a.usage.completion_tokens, 0)));
      assert.equal(Number(row.amount), Number(row.voucherAmount) + Number(row.payAmount), 'a bill row\'s parts add up (interface)');
    }
    // Whole-second bill windows (endTime inclusive) see the charge of that second, or none of it.
    const before = (await owner.get('/openapi/v1/billing/bill/list', { cycleType: 'Hour', productCategory: 'llm', startTime: now - 3600, endTime: now - 1 })).body.bills;
    assert.equal(before.length, 0, 'a window ending the second before the requests holds none of them');
    const during = (await owner.get('/openapi/v1/billing/bill/list', { cycleType: 'Hour', productCategory: 'llm', startTime: now, endTime: now })).body.bills;
    assert.equal(during.reduce((n: number, b: { billNum0: string }) => n + Number(b.billNum0), 0), answers.reduce((n, a) => n + a.usage.prompt_tokens, 0));
  } finally {
    await t.close();
  }
});
