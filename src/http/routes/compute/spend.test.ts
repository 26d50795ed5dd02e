// GPU spend goes through the one admission: key budget, member budget and balance cover
// instance creation, starts, restarts and subscription terms; GPU time counts in budgets;
// a budget that runs out stops what it pays for.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { as } from '../../../../test/helpers/http.ts';
import { BASE, fixture, MONTHLY_PRICE, PRICE, PRODUCT } from '../../../../test/helpers/compute-fixture.ts';

function keyBudget(f: Awaited<ReturnType<typeof fixture>>, limitUnits: bigint | number) {
  return f.owner.put('/openapi/v1/user/team/key-budget', {
    member_id: f.team.owner.memberId, key_id: f.team.owner.keyId, budget_type: 'Recurring', budget_limit: Number(limitUnits), cycle: 'Monthly',
  });
}

const createBody = (over: Record<string, unknown> = {}) => ({ name: 'box', productId: PRODUCT, gpuNum: 1, rootfsSize: 50, imageUrl: 'nvidia/cuda:12', kind: 'gpu', ...over });

test('20 instance creates at once against a key budget that fits 3 first hours: exactly 3', async () => {
  const f = await fixture();
  try {
    assert.equal((await keyBudget(f, PRICE * 3n + PRICE / 2n)).status, 200);
    const results = await Promise.all(Array.from({ length: 20 }, () => f.owner.post(`${BASE}/gpu/instance/create`, createBody())));
    const ok = results.filter((r) => r.status === 200);
    assert.equal(ok.length, 3, JSON.stringify(results.map((r) => r.body.reason ?? r.status)));
    for (const r of results.filter((x) => x.status !== 200)) {
      assert.equal(r.status, 403, JSON.stringify(r.body));
      assert.equal(r.body.reason, 'BUDGET_EXCEEDED');
      assert.equal(r.body.metadata.scope, 'key');
      // names the limit and what is left, in units and USD (at most what three first hours leave:
      // a create committing right then may be counted twice for an instant, never less)
      assert.match(r.body.message, /key budget cannot cover the first hour of 1 × .*: \d+(\.\d+)? units \(\$[\d.]+\) left, 3500 units \(\$0\.35\) needed/);
      assert.ok(r.body.metadata.remaining <= 1750, JSON.stringify(r.body.metadata));
    }
    // the three first hours are held: pending in the balance, and the list shows 3 instances
    const list = await f.owner.get(`${BASE}/gpu/instances`, { pageSize: 50, pageNum: 1 });
    assert.equal(list.body.total, 3);
    const balance = await f.owner.get('/openapi/v1/billing/balance/detail');
    assert.equal(balance.body.pendingCharges, String(PRICE * 3n));
  } finally {
    await f.close();
  }
});

test('an exhausted key budget or member budget refuses create, start and restart; a monthly term must fit whole', async () => {
  const f = await fixture();
  try {
    const dev = as(f.t.app, f.team.members.Developer.apiKey);
    const devBody = { member_id: f.team.members.Developer.memberId };
    // member budget of the Developer: less than an hour
    assert.equal((await f.owner.put('/openapi/v1/user/team/budget', { ...devBody, budget_type: 'One-time', budget_limit: 10000 })).status, 200);
    const r = await dev.post(`${BASE}/gpu/instance/create`, createBody({ gpuNum: 3 }));
    assert.equal(r.status, 403, JSON.stringify(r.body));
    assert.equal(r.body.reason, 'BUDGET_EXCEEDED');
    assert.equal(r.body.metadata.scope, 'member');
    // a $200 subscription on a $1 budget
    assert.equal((await keyBudget(f, 10000)).status, 200);
    const m = await f.owner.post(`${BASE}/gpu/instance/create`, createBody({ billingMode: 'monthly', month: 1 }));
    assert.equal(m.status, 403);
    assert.equal(m.body.reason, 'BUDGET_EXCEEDED');
    assert.equal(m.body.metadata.required, Number(MONTHLY_PRICE));
    // nothing was written by the refusals
    assert.equal((await f.owner.get(`${BASE}/gpu/instances`)).body.total, 0);

    // an hour of 3 GPUs fits: create, run, stop; then the budget is lowered below an hour: start is refused
    assert.equal((await keyBudget(f, PRICE * 3n + 100n)).status, 200);
    const id = await f.create({ gpuNum: 3 });
    await f.until(id, 'running');
    await f.owner.post(`${BASE}/gpu/instance/stop`, { instanceId: id });
    await f.until(id, 'exited');
    assert.equal((await keyBudget(f, 10000)).status, 200); // used some seconds already: less than an hour left
    const start = await f.owner.post(`${BASE}/gpu/instance/start`, { instanceId: id });
    assert.equal(start.status, 403, JSON.stringify(start.body));
    assert.equal(start.body.reason, 'BUDGET_EXCEEDED');
    assert.equal((await f.get(id)).status, 'exited', 'a refused start changes nothing');
  } finally {
    await f.close();
  }
});

test('GPU time counts in the key and member budgets (lists and checks); when the key budget runs out the instance stops and says why', async () => {
  const f = await fixture();
  try {
    const limit = PRICE * 3n; // three hours (budgets start at 10000 units)
    assert.equal((await keyBudget(f, limit)).status, 200);
    const id = await f.create();
    await f.until(id, 'running');
    await f.run(30 * 60_000, 60_000); // half an hour
    const listed = (await f.owner.get('/openapi/v1/user/team/key-budget-list', { member_id: f.team.owner.memberId })).body.key_budgets
      .find((k: any) => k.key_id === f.team.owner.keyId);
    assert.ok(listed.used >= Number(PRICE) / 2 - 1 && listed.used <= Number(PRICE) / 2 + 60, `used ${listed.used}`);
    const members = (await f.owner.get('/openapi/v1/user/team/budget-list')).body.budgets;
    assert.ok(members.find((m: any) => m.member_id === f.team.owner.memberId), 'member listed');
    const check = await f.owner.post('/openapi/v1/user/team/check-key-budget-by-cost', {
      member_id: f.team.owner.memberId, key_id: f.team.owner.keyId, cost: Number(limit) - listed.used + 1,
    });
    assert.equal(check.status, 200);
    assert.equal(check.body.enough, false, JSON.stringify(check.body));

    // run past the budget: it stops within one metering interval of running out
    await f.run(3 * 3_600_000, 60_000);
    const g = await f.until(id, 'exited');
    assert.equal(g.statusError.state, 'key_budget_exceeded');
    assert.match(g.statusError.message, /API key budget ran out/);
    const after = (await f.owner.get('/openapi/v1/user/team/key-budget-list', { member_id: f.team.owner.memberId })).body.key_budgets
      .find((k: any) => k.key_id === f.team.owner.keyId);
    const overshootUnits = after.used - Number(limit);
    // one metering interval (60 s) of one GPU at most
    assert.ok(overshootUnits <= Number(PRICE) / 60, `charged ${overshootUnits} units past the limit`);
    // nothing is held any more
    assert.equal((await f.owner.get('/openapi/v1/billing/balance/detail')).body.pendingCharges, '0');
  } finally {
    await f.close();
  }
});

test('a held first hour is spent by the metering, never twice: balance and pending add up while it runs and after it stops', async () => {
  const f = await fixture({ topupUnits: Number(PRICE * 10n) });
  try {
    const before = BigInt((await f.owner.get('/openapi/v1/billing/balance/detail')).body.availableBalance);
    const id = await f.create();
    let b = (await f.owner.get('/openapi/v1/billing/balance/detail')).body;
    assert.equal(b.pendingCharges, String(PRICE), 'the first hour is held');
    assert.equal(BigInt(b.availableBalance), before - PRICE);
    await f.until(id, 'running');
    await f.run(20 * 60_000, 60_000);
    b = (await f.owner.get('/openapi/v1/billing/balance/detail')).body;
    // available = before − (charged + still held) = before − one hour, as long as the hour lasts
    assert.equal(BigInt(b.availableBalance), before - PRICE);
    assert.ok(BigInt(b.pendingCharges) < PRICE && BigInt(b.pendingCharges) > 0n);
    await f.owner.post(`${BASE}/gpu/instance/stop`, { instanceId: id });
    await f.until(id, 'exited');
    b = (await f.owner.get('/openapi/v1/billing/balance/detail')).body;
    assert.equal(b.pendingCharges, '0', 'stopping gives the rest of the hour back');
    assert.ok(BigInt(b.availableBalance) > before - PRICE, 'only the time used was spent');
  } finally {
    await f.close();
  }
});
