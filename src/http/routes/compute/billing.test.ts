import { test } from 'node:test';
import assert from 'node:assert/strict';
import { topup } from '../../../../test/helpers/factories.ts';
import { costMicro } from '../../../domain/compute/metering.ts';
import { BASE, MONTHLY_PRICE, PRICE, SPOT_PRICE, fixture, gpuChargesMicro, type Fixture } from '../../../../test/helpers/compute-fixture.ts';

const T0_S = Math.floor(Date.UTC(2026, 10, 15, 12, 0, 0) / 1000); // ManualClock's start

async function chargesByMethod(f: Fixture, id: string): Promise<Record<string, bigint>> {
  const r = await f.t.store.db.execute(`select billing_method::text as m, sum(amount_micro)::text as s from ledger_entries where owner_id = '${id}' and kind = 'charge' group by billing_method` as never) as unknown as { rows: { m: string; s: string }[] };
  return Object.fromEntries(r.rows.map((x) => [x.m, BigInt(x.s)]));
}

async function fixedTermBills(f: Fixture, id: string) {
  // explicit window: bills created from the test's start over the next 30 days
  const r = await f.owner.get('/openapi/v1/billing/bill/monthly/list', { ownerId: id, startTime: T0_S, endTime: T0_S + 30 * 86400 });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.bills as any[];
}

test('on demand: 90 s at price P charges exactly 90 × P / 3600 (micro), category gpu, method 1, owner = instance', async () => {
  const f = await fixture();
  try {
    const id = await f.create();
    await f.until(id, 'running');
    assert.equal(await gpuChargesMicro(f, id), 0n, 'nothing is billed before running');
    await f.run(90_000, 1000); // crosses one periodic metering pass (every 60 s)
    assert.equal((await f.owner.post(`${BASE}/gpu/instance/stop`, { instanceId: id })).status, 200);
    const expected = 90n * PRICE * 1_000_000n / 3600n;
    assert.equal(expected, 87_500_000n);
    assert.equal(await gpuChargesMicro(f, id), expected);
    assert.deepEqual(await chargesByMethod(f, id), { 1: expected });
    // stopping and exited hold no GPUs: nothing more is billed, however long it stays
    await f.until(id, 'exited');
    await f.run(3_600_000, 60_000);
    assert.equal(await gpuChargesMicro(f, id), expected);
    // the user sees it in the usage bills
    const nowS = Math.floor(f.t.clock.nowMs() / 1000);
    const bills = await f.owner.get('/openapi/v1/billing/bill/list', { cycleType: 'Day', productCategory: 'gpu', ownerId: id, startTime: nowS - 86400, endTime: nowS + 1 });
    assert.equal(bills.status, 200, JSON.stringify(bills.body));
    assert.ok(bills.body.bills.length >= 1);
    for (const b of bills.body.bills) {
      assert.equal(b.ownerID, id);
      assert.equal(b.billingMethod, 1);
      assert.equal(b.category, 'gpu');
    }
  } finally {
    await f.close();
  }
});

test('metering is per whole second, never twice, exact over many passes (2 GPUs, odd durations)', async () => {
  const f = await fixture();
  try {
    const id = await f.create({ gpuNum: 2 });
    await f.until(id, 'running');
    // irregular steps, repeated passes at the same instant
    for (const step of [333, 61_000, 1, 59_999, 7_777, 120_000]) {
      f.t.clock.advance(step);
      await f.t.services.compute.reconcile();
      await f.t.services.compute.reconcile();
    }
    const elapsedMs = 333 + 61_000 + 1 + 59_999 + 7_777 + 120_000;
    await f.owner.post(`${BASE}/gpu/instance/stop`, { instanceId: id });
    assert.equal(await gpuChargesMicro(f, id), costMicro(Math.floor(elapsedMs / 1000), 2, PRICE));
    const keys = await f.t.store.db.execute(`select count(*)::int as n, count(distinct idempotency_key)::int as d from ledger_entries where owner_id = '${id}'` as never) as unknown as { rows: { n: number; d: number }[] };
    assert.equal(keys.rows[0]!.n, keys.rows[0]!.d);
    assert.ok(keys.rows[0]!.n >= 3);
  } finally {
    await f.close();
  }
});

test('balance: create and start refused with BALANCE_NOT_ENOUGH; running out stops on-demand instances and says why', async () => {
  const f = await fixture({ topupUnits: 0 });
  try {
    const r = await f.owner.post(`${BASE}/gpu/instance/create`, { productId: 'prd_rtx4090_24g', gpuNum: 1, rootfsSize: 50, imageUrl: 'i', kind: 'gpu' });
    assert.equal(r.status, 400);
    assert.equal(r.body.reason, 'BALANCE_NOT_ENOUGH');
    // amounts in the body are the interface's unit (1/10000 USD), with micro-units beside them
    assert.equal(r.body.metadata.scope, 'balance');
    assert.equal(r.body.metadata.required, Number(PRICE));
    assert.equal(r.body.metadata.remaining, 0);
    assert.equal(r.body.metadata.requiredMicro, String(PRICE * 1_000_000n));
    assert.match(r.body.message, /account balance cannot cover the first hour of 1 × .*: 0 units \(\$0\.00\) left, 3500 units \(\$0\.35\) needed/);
    const m = await f.owner.post(`${BASE}/gpu/instance/create`, { productId: 'prd_rtx4090_24g', gpuNum: 2, rootfsSize: 50, imageUrl: 'i', kind: 'gpu', billingMode: 'monthly', month: 3 });
    assert.equal(m.body.reason, 'BALANCE_NOT_ENOUGH');
    assert.equal(m.body.metadata.required, Number(MONTHLY_PRICE * 2n * 3n));
    // exactly one hour is enough to start
    await topup(f.t.app, f.t.creds.adminToken, f.team.userId, Number(PRICE));
    const id = await f.create();
    await f.until(id, 'running');
    await f.run(3_700_000, 60_000);
    const g = await f.until(id, 'exited');
    assert.equal(g.statusError.state, 'balance_not_enough');
    assert.match(g.statusError.message, /balance ran out/);
    // it was billed for what it ran, not a second more than the hour it could pay … plus at most one metering interval
    const charged = await gpuChargesMicro(f, id);
    assert.ok(charged >= PRICE * 1_000_000n && charged <= costMicro(3600 + 61, 1, PRICE), String(charged));
    const s = await f.owner.post(`${BASE}/gpu/instance/start`, { instanceId: id });
    assert.equal(s.status, 400);
    assert.equal(s.body.reason, 'BALANCE_NOT_ENOUGH');
  } finally {
    await f.close();
  }
});

test('balance: an instance that uses up what the account has is stopped when it runs out, not a metering interval later', async () => {
  const f = await fixture({ topupUnits: 0 });
  try {
    // an hour and a half at 2 GPUs, plus 50 units (~25.7 s): it runs out between two metering passes
    const paid = PRICE * 3n + 50n;
    await topup(f.t.app, f.t.creds.adminToken, f.team.userId, Number(paid));
    const id = await f.create({ gpuNum: 2 });
    await f.until(id, 'running');
    const startedMs = f.t.clock.nowMs();
    await f.run(5_340_000, 60_000); // 89 min: the run-out is predicted at the first metering pass
    assert.equal((await f.get(id)).status, 'running');
    await f.run(120_000, 1000);
    const g = await f.until(id, 'exited');
    assert.equal(g.statusError.state, 'balance_not_enough');
    // billed what the balance could pay, plus at most a couple of seconds (was: up to 60 s)
    const charged = await gpuChargesMicro(f, id);
    assert.ok(charged >= paid * 1_000_000n, String(charged));
    assert.ok(charged <= paid * 1_000_000n + costMicro(2, 2, PRICE), `${charged} for ${(f.t.clock.nowMs() - startedMs) / 1000} s`);
  } finally {
    await f.close();
  }
});

test('spot: billed at the spot price (method 4); reclaim running → notified → reclaiming → terminated', async () => {
  const f = await fixture();
  try {
    const id = await f.create({ billingMode: 'spot' });
    let g = await f.until(id, 'running');
    assert.equal(g.billingMode, 'spot');
    assert.equal(g.spotStatus, 'running');
    assert.equal(g.spotReclaimTime, '0');
    await f.run(30_000, 1000);
    const rec = await f.admin.post(`/admin/v1/gpu/instances/${id}/reclaim`, { noticeSeconds: 30 });
    assert.equal(rec.status, 200, JSON.stringify(rec.body));
    g = await f.get(id);
    assert.equal(g.spotStatus, 'notified');
    assert.equal(g.spotReclaimTime, String(Math.ceil(f.t.clock.nowMs() / 1000) + 30));
    assert.equal(g.status, 'running');
    await f.run(30_000, 1000);
    g = await f.get(id);
    assert.ok(['reclaiming', 'terminated'].includes(g.spotStatus), g.spotStatus);
    g = await f.until(id, 'exited');
    assert.equal(g.spotStatus, 'terminated');
    assert.equal(g.statusError.state, 'spot_reclaimed');
    // ran 60 s (30 before the notice, 30 of notice) at the spot price
    assert.deepEqual(await chargesByMethod(f, id), { 4: costMicro(60, 1, SPOT_PRICE) });
    // the sim can reclaim too: the next metering pass notices it
    const id2 = await f.create({ billingMode: 'spot' });
    await f.until(id2, 'running');
    f.sim.reclaim(id2);
    await f.run(61_000, 1000);
    assert.equal((await f.get(id2)).spotStatus, 'notified');
    assert.equal((await f.until(id2, 'exited')).spotStatus, 'terminated');
  } finally {
    await f.close();
  }
});

test('monthly: new buy, renewal, expiry and to-monthly post fixed-term bills; endTime carried', async () => {
  const f = await fixture({ topupUnits: 100_000_000 });
  try {
    const startS = Math.floor(f.t.clock.nowMs() / 1000);
    const id = await f.create({ billingMode: 'monthly', month: 1, gpuNum: 2 });
    let g = await f.get(id);
    assert.equal(g.billingMode, 'monthly');
    const end1 = Number(g.endTime);
    assert.equal(new Date(end1 * 1000).getUTCMonth(), (new Date(startS * 1000).getUTCMonth() + 1) % 12);
    let bills = await fixedTermBills(f, id);
    assert.equal(bills.length, 1);
    assert.equal(bills[0].tradeType, 'monthly_new_buy');
    assert.equal(bills[0].billingMethod, 2);
    assert.equal(bills[0].amount, String(MONTHLY_PRICE * 2n));
    assert.equal(bills[0].billNum, '2');
    assert.equal(bills[0].endTime, String(end1));
    await f.until(id, 'running');
    await f.run(120_000, 10_000);
    assert.deepEqual(await chargesByMethod(f, id), { 2: MONTHLY_PRICE * 2n * 1_000_000n }, 'no per-second charges on monthly');

    const rn = await f.owner.post(`${BASE}/gpu/instance/renewInstance`, { instanceId: id, month: 2 });
    assert.equal(rn.status, 200, JSON.stringify(rn.body));
    g = await f.get(id);
    const end2 = Number(g.endTime);
    assert.equal(new Date(end2 * 1000).getUTCMonth(), (new Date(end1 * 1000).getUTCMonth() + 2) % 12);
    bills = await fixedTermBills(f, id);
    const reBuy = bills.find((b) => b.tradeType === 'monthly_re_buy');
    assert.equal(reBuy.amount, String(MONTHLY_PRICE * 2n * 2n));
    assert.equal(reBuy.startTime, String(end1));
    assert.equal(reBuy.endTime, String(end2));

    // expiry: at endTime the instance stops and says why; it cannot start until renewed
    f.t.clock.set(end2 * 1000);
    await f.t.services.compute.reconcile();
    g = await f.until(id, 'exited');
    assert.equal(g.statusError.state, 'subscription_expired');
    const st = await f.owner.post(`${BASE}/gpu/instance/start`, { instanceId: id });
    assert.equal(st.status, 400);
    assert.match(st.body.message, /renew/);
    assert.equal((await f.owner.post(`${BASE}/gpu/instance/renewInstance`, { instanceId: id, month: 1 })).status, 200);
    assert.equal((await f.owner.post(`${BASE}/gpu/instance/start`, { instanceId: id })).status, 200);
    await f.until(id, 'running');

    // renew is for monthly instances only; month is validated
    f.t.clock.set((T0_S + 86400) * 1000); // back inside the bill window for the checks below
    const od = await f.create();
    const bad = await f.owner.post(`${BASE}/gpu/instance/renewInstance`, { instanceId: od, month: 1 });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.reason, 'VALIDATOR_PARAM');
    assert.equal((await f.owner.post(`${BASE}/gpu/instance/renewInstance`, { instanceId: id, month: 0 })).body.metadata.field, 'month');

    // to-monthly: the on-demand time so far is billed, then a monthly_re_config bill; no more metering
    await f.until(od, 'running');
    await f.run(120_000, 1000);
    const tm = await f.owner.post(`${BASE}/gpu/instance/transToMonthlyInstance`, { instanceId: od, month: 1 });
    assert.equal(tm.status, 200, JSON.stringify(tm.body));
    g = await f.get(od);
    assert.equal(g.billingMode, 'monthly');
    assert.notEqual(g.endTime, '-1');
    const cfg = (await fixedTermBills(f, od)).find((b) => b.tradeType === 'monthly_re_config');
    assert.equal(cfg.amount, String(MONTHLY_PRICE));
    await f.run(300_000, 10_000);
    assert.deepEqual(await chargesByMethod(f, od), { 1: costMicro(120, 1, PRICE), 2: MONTHLY_PRICE * 1_000_000n });
  } finally {
    await f.close();
  }
});
