import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp, type TestApp } from '../../../../test/helpers/app.ts';
import { as } from '../../../../test/helpers/http.ts';
import { charge, createTeam, topup, type Team } from '../../../../test/helpers/factories.ts';

let h: TestApp;
let team: Team;
const S = (iso: string) => Math.floor(Date.parse(iso) / 1000);

before(async () => {
  h = await buildTestApp();
  team = await createTeam(h.app, h.creds.adminToken);
  await topup(h.app, h.creds.adminToken, team.userId, 1_000_000);
});
after(() => h.close());

async function postMonthly(body: Record<string, unknown>) {
  return as(h.app, h.creds.adminToken).post(`/admin/v1/teams/${team.userId}/fixed-term-bills`, {
    amount: 300000, productId: 'prd_a100', productName: 'A100 80G', productCategory: 'gpu', ownerId: 'ins_1',
    tradeType: 'monthly_new_buy', basePrice: 150000, billNum: '2', startTime: S('2026-11-10T00:00:00Z'),
    endTime: S('2026-12-10T00:00:00Z'), idempotencyKey: `m-${Math.random()}`, ...body,
  });
}

test('fixed-term bills: every field, filters, and the 31-day limit', async () => {
  h.clock.set(Date.parse('2026-11-10T08:00:00Z'));
  assert.equal((await postMonthly({})).status, 200);
  h.clock.set(Date.parse('2026-11-12T08:00:00Z'));
  assert.equal((await postMonthly({ productName: 'Disk 100G', productCategory: 'cloud_storage', ownerId: 'vol_1', tradeType: 'monthly_re_buy', amount: 5000, basePrice: 50, billNum: '100', storageDays: 30 })).status, 200);
  const owner = as(h.app, team.owner.apiKey);
  const q = { startTime: S('2026-11-01T00:00:00Z'), endTime: S('2026-11-30T00:00:00Z') };
  const all = await owner.get('/openapi/v1/billing/bill/monthly/list', q);
  assert.equal(all.status, 200);
  assert.equal(all.body.bills.length, 2);
  assert.deepEqual(all.body.bills[0], {
    userId: team.userId, startTime: String(S('2026-11-10T00:00:00Z')), endTime: String(S('2026-12-10T00:00:00Z')),
    productName: 'A100 80G', productCategory: 'gpu', productId: 'prd_a100', ownerID: 'ins_1', tradeMode: 'monthly',
    tradeType: 'monthly_new_buy', billingMethod: 2, basePrice: '150000', billNum: '2', amount: '300000', voucherAmount: '0',
    payAmount: '300000', payAmountDisplay: 30, pricePrecision: 1, createTime: String(S('2026-11-10T08:00:00Z')), cycle: '2026-11',
  });
  assert.equal(all.body.bills[1].storageDays, 30);
  for (const [filter, n] of [[{ category: 'gpu' }, 1], [{ category: 'summary' }, 2], [{ productName: 'disk' }, 1], [{ ownerId: 'ins_1' }, 1], [{ ownerId: 'none' }, 0]] as const) {
    assert.equal((await owner.get('/openapi/v1/billing/bill/monthly/list', { ...q, ...filter })).body.bills.length, n, JSON.stringify(filter));
  }
  const wide = await owner.get('/openapi/v1/billing/bill/monthly/list', { startTime: S('2026-10-01T00:00:00Z'), endTime: S('2026-11-02T00:00:01Z') });
  assert.equal(wide.status, 400);
  assert.match(wide.body.message, /31 days/);
  assert.equal(wide.body.metadata.maxDays, 31);
  const badCat = await owner.get('/openapi/v1/billing/bill/monthly/list', { ...q, category: 'llm' });
  assert.equal(badCat.status, 400);
  assert.equal(badCat.body.reason, 'INVALID_PRODUCT_CATEGORY');
  // without a window: the last 31 days up to now, including a bill posted this very millisecond
  assert.equal((await postMonthly({ ownerId: 'ins_now' })).status, 200);
  assert.equal((await owner.get('/openapi/v1/billing/bill/monthly/list', { ownerId: 'ins_now' })).body.bills.length, 1);
  // exactly 31 days is allowed
  assert.equal((await owner.get('/openapi/v1/billing/bill/monthly/list', { startTime: S('2026-11-01T00:00:00Z'), endTime: S('2026-12-02T00:00:00Z') })).status, 200);
});

test('usage bills aggregate ledger charges per bucket and product', async () => {
  h.clock.set(Date.parse('2026-11-03T10:15:00Z'));
  const k = team.members.Developer;
  await charge(h.app, h.creds.adminToken, team.userId, { amount: 100, category: 'llm', billingMethod: 7, productId: 'mdl', productName: 'Model X', keyId: k.keyId });
  h.clock.set(Date.parse('2026-11-03T11:45:00Z'));
  await charge(h.app, h.creds.adminToken, team.userId, { amount: 250, category: 'llm', billingMethod: 7, productId: 'mdl', productName: 'Model X', keyId: k.keyId });
  h.clock.set(Date.parse('2026-11-04T09:00:00Z'));
  await charge(h.app, h.creds.adminToken, team.userId, { amount: 1000, category: 'gpu', billingMethod: 1, productId: 'gpu1', productName: 'GPU', ownerId: 'ins_9' });
  const owner = as(h.app, team.owner.apiKey);
  const q = { startTime: S('2026-11-03T00:00:00Z'), endTime: S('2026-11-05T00:00:00Z') };
  const day = await owner.get('/openapi/v1/billing/bill/list', { ...q, cycleType: 'Day', productCategory: 'llm' });
  assert.equal(day.status, 200, JSON.stringify(day.body));
  assert.equal(day.body.bills.length, 1);
  assert.equal(day.body.bills[0].amount, '350');
  assert.equal(day.body.bills[0].startTime, String(S('2026-11-03T00:00:00Z')));
  assert.equal(day.body.bills[0].endTime, String(S('2026-11-04T00:00:00Z')));
  assert.equal(day.body.bills[0].billingMethod, 7);
  assert.equal(day.body.bills[0].ownerID, k.keyId);
  const hour = await owner.get('/openapi/v1/billing/bill/list', { ...q, cycleType: 'Hour', productCategory: 'llm' });
  assert.deepEqual(hour.body.bills.map((b: { amount: string }) => b.amount), ['100', '250']);
  const summary = await owner.get('/openapi/v1/billing/bill/list', { ...q, cycleType: 'Month', productCategory: 'summary' });
  assert.deepEqual(summary.body.bills.map((b: { category: string; amount: string }) => `${b.category}:${b.amount}`).sort(), ['gpu:1000', 'llm:350']);
  const bad = await owner.get('/openapi/v1/billing/bill/list', { ...q, cycleType: 'Year', productCategory: 'llm' });
  assert.equal(bad.status, 400);
  assert.equal(bad.body.reason, 'INVALID_BILL_CYCLE');
  assert.equal((await owner.get('/openapi/v1/billing/bill/list', { cycleType: 'Day' })).status, 400, 'productCategory is required');

  const keyBills = await owner.get('/openapi/v1/billing/apikey/bill/list', { ...q, cycleType: 'Day', category: 'llm' });
  assert.equal(keyBills.status, 200);
  assert.equal(keyBills.body.bills.length, 1);
  assert.equal(keyBills.body.bills[0].ownerID, k.keyId);
  assert.equal(keyBills.body.bills[0].apikeyName, 'Developer-key');
  assert.match(keyBills.body.bills[0].apikeyMask, /^sk_.{4}\.\.\..{4}$/);
  const wide = await owner.get('/openapi/v1/billing/apikey/bill/list', { cycleType: 'Day', startTime: S('2026-10-01T00:00:00Z'), endTime: S('2026-11-05T00:00:00Z') });
  assert.equal(wide.status, 400);
  assert.match(wide.body.message, /31 days/);
  assert.equal((await owner.get('/openapi/v1/billing/apikey/bill/list', { cycleType: 'Day' })).status, 400, 'startTime and endTime required');
  assert.equal((await owner.get('/openapi/v1/billing/apikey/bill/list', { ...q, cycleType: 'Hour' })).status, 400, 'Hour is not an API-key cycle');
});

test('bills and balance: Owner, Admin and Billing only', async () => {
  for (const role of ['Developer', 'Basic'] as const) {
    const c = as(h.app, team.members[role].apiKey);
    assert.equal((await c.get('/openapi/v1/billing/balance/detail')).status, 403, role);
    assert.equal((await c.get('/openapi/v1/billing/bill/monthly/list')).status, 403, role);
  }
  for (const role of ['Owner', 'Admin', 'Billing'] as const) {
    assert.equal((await as(h.app, team.members[role].apiKey).get('/openapi/v1/billing/balance/detail')).status, 200, role);
  }
});

test('a team sees only its own bills', async () => {
  const other = await createTeam(h.app, h.creds.adminToken);
  const r = await as(h.app, other.owner.apiKey).get('/openapi/v1/billing/bill/monthly/list', { startTime: S('2026-11-01T00:00:00Z'), endTime: S('2026-11-30T00:00:00Z') });
  assert.equal(r.status, 200);
  assert.deepEqual(r.body.bills, []);
});
