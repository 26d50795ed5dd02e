import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp, type TestApp } from '../../../../test/helpers/app.ts';
import { as } from '../../../../test/helpers/http.ts';
import { charge, createTeam, type Team } from '../../../../test/helpers/factories.ts';

let h: TestApp;
let team: Team;
let other: Team;

before(async () => {
  h = await buildTestApp();
  team = await createTeam(h.app, h.creds.adminToken);
  other = await createTeam(h.app, h.creds.adminToken);
});
after(() => h.close());

const KEY_BUDGET = '/openapi/v1/user/team/key-budget';
const MEMBER_BUDGET = '/openapi/v1/user/team/budget';

async function keyBudgets(memberId: string, token = team.owner.apiKey) {
  return as(h.app, token).get('/openapi/v1/user/team/key-budget-list', { member_id: memberId });
}

test('a key without a budget is listed Unlimited with used=0 and budget_limit=0', async () => {
  const dev = team.members.Developer;
  const r = await keyBudgets(dev.memberId);
  assert.equal(r.status, 200);
  assert.deepEqual(r.body, { key_budgets: [{ key_id: dev.keyId, key_name: 'Developer-key', budget_type: 'Unlimited', budget_limit: 0, used: 0, remaining: 0 }] });
});

test('budget_limit below 10000, missing limit, missing or wrong cycle are refused and change nothing', async () => {
  const owner = as(h.app, team.owner.apiKey);
  const dev = team.members.Developer;
  const base = { member_id: dev.memberId, key_id: dev.keyId };
  const cases: [Record<string, unknown>, string][] = [
    [{ budget_type: 'One-time', budget_limit: 9999 }, 'budget_limit'],
    [{ budget_type: 'One-time' }, 'budget_limit'],
    [{ budget_type: 'Recurring', budget_limit: 20000 }, 'cycle'],
    [{ budget_type: 'Recurring', budget_limit: 20000, cycle: 'Weekly' }, 'cycle'],
    [{ budget_type: 'Forever', budget_limit: 20000 }, 'budget_type'],
    [{ budget_type: 'One-time', budget_limit: 'lots' }, 'budget_limit'],
  ];
  for (const [body, field] of cases) {
    const r = await owner.put(KEY_BUDGET, { ...base, ...body });
    assert.equal(r.status, 400, JSON.stringify(body));
    assert.equal(r.body.reason, 'INVALID_ARGUMENT');
    assert.equal(r.body.metadata.field, field, JSON.stringify(r.body));
  }
  assert.equal((await keyBudgets(dev.memberId)).body.key_budgets[0].budget_type, 'Unlimited');
  // exactly the minimum is fine
  assert.equal((await owner.put(KEY_BUDGET, { ...base, budget_type: 'One-time', budget_limit: 10000 })).status, 200);
  assert.equal((await owner.put(KEY_BUDGET, { ...base, budget_type: 'Unlimited' })).status, 200);
});

test('budget_limit beyond 2^53 - 1 or beyond int64 is a 400 naming the field, not a 500 or a rounded limit', async () => {
  const owner = as(h.app, team.owner.apiKey);
  const dev = team.members.Developer;
  const base = { member_id: dev.memberId, key_id: dev.keyId, budget_type: 'One-time' };
  for (const budget_limit of ['9007199254740993', '99999999999999999999', 9007199254740992, 1e20]) {
    for (const [url, body] of [[KEY_BUDGET, base], [MEMBER_BUDGET, { member_id: dev.memberId, budget_type: 'One-time' }]] as const) {
      const r = await owner.put(url, { ...body, budget_limit });
      assert.equal(r.status, 400, `${url} ${budget_limit}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.reason, 'INVALID_ARGUMENT');
      assert.equal(r.body.metadata.field, 'budget_limit');
    }
  }
  const float = await owner.put(KEY_BUDGET, { ...base, budget_limit: 20000.5 });
  assert.equal(float.status, 400);
  assert.equal(float.body.message, 'budget_limit: must be an integer');
  assert.equal((await keyBudgets(dev.memberId)).body.key_budgets[0].budget_type, 'Unlimited');
  // the largest exact limit is taken and reads back exactly
  assert.equal((await owner.put(KEY_BUDGET, { ...base, budget_limit: '9007199254740991' })).status, 200);
  assert.equal((await keyBudgets(dev.memberId)).body.key_budgets[0].budget_limit, Number.MAX_SAFE_INTEGER);
  assert.equal((await owner.put(KEY_BUDGET, { ...base, budget_type: 'Unlimited' })).status, 200);
});

test('One-time budget counts spend since it was set; remaining may go negative', async () => {
  const owner = as(h.app, team.owner.apiKey);
  const m = team.members.Admin;
  await charge(h.app, h.creds.adminToken, team.userId, { amount: 7000, keyId: m.keyId }); // before the budget: not counted
  h.clock.advance(1000);
  const put = await owner.put(KEY_BUDGET, { member_id: m.memberId, key_id: m.keyId, budget_type: 'One-time', budget_limit: 20000 });
  assert.equal(put.status, 200);
  assert.deepEqual(put.body, {});
  h.clock.advance(1000);
  await charge(h.app, h.creds.adminToken, team.userId, { amount: 15000, keyId: m.keyId });
  let entry = (await keyBudgets(m.memberId)).body.key_budgets[0];
  assert.deepEqual(entry, { key_id: m.keyId, key_name: 'Admin-key', budget_type: 'One-time', budget_limit: 20000, used: 15000, remaining: 5000 });
  await charge(h.app, h.creds.adminToken, team.userId, { amount: 9000, keyId: m.keyId });
  entry = (await keyBudgets(m.memberId)).body.key_budgets[0];
  assert.equal(entry.used, 24000);
  assert.equal(entry.remaining, -4000);
  // key check by cost: remaining must cover the cost
  const chk = (cost: number) => owner.post('/openapi/v1/user/team/check-key-budget-by-cost', { member_id: m.memberId, key_id: m.keyId, cost });
  assert.equal((await chk(0)).body.enough, false);
  h.clock.advance(1000);
  await owner.put(KEY_BUDGET, { member_id: m.memberId, key_id: m.keyId, budget_type: 'One-time', budget_limit: 30000 });
  assert.equal((await keyBudgets(m.memberId)).body.key_budgets[0].used, 0, 're-setting starts a new One-time period');
  assert.equal((await chk(30000)).body.enough, true);
  assert.equal((await chk(30001)).body.enough, false);
});

test('Recurring budget counts the current UTC calendar month and reports the period', async () => {
  const owner = as(h.app, team.owner.apiKey);
  const m = team.members.Basic;
  // clock: 2026-11-15; a charge in October must not count
  h.clock.set(Date.UTC(2026, 9, 20));
  await charge(h.app, h.creds.adminToken, team.userId, { amount: 5000, keyId: m.keyId });
  h.clock.set(Date.UTC(2026, 10, 15));
  assert.equal((await owner.put(MEMBER_BUDGET, { member_id: m.memberId, budget_type: 'Recurring', budget_limit: 12000, cycle: 'Monthly' })).status, 200);
  await charge(h.app, h.creds.adminToken, team.userId, { amount: 2500, memberId: m.memberId });
  await charge(h.app, h.creds.adminToken, team.userId, { amount: 2500, keyId: m.keyId });
  const list = await owner.get('/openapi/v1/user/team/budget-list');
  assert.equal(list.status, 200);
  assert.equal(list.body.member_count, 5);
  const e = list.body.budgets.find((b: { member_id: string }) => b.member_id === m.memberId);
  assert.match(e.email, /^basic-team-\d+@example\.com$/);
  assert.deepEqual(e, {
    email: e.email, role: 'Basic', status: 'active', member_id: m.memberId, phone: '',
    user_id: team.userId, remark_name: '', budget_type: 'Recurring', budget_limit: 12000, used: 5000, remaining: 7000,
    cycle: 'Monthly', period_start: '2026-11-01T00:00:00.000Z', period_end: '2026-12-01T00:00:00.000Z',
  });
  // member checks: > 0 for check-budget, >= cost for check-budget-by-cost
  assert.equal((await owner.post('/openapi/v1/user/team/check-budget', { member_id: m.memberId })).body.enough, true);
  assert.equal((await owner.post('/openapi/v1/user/team/check-budget-by-cost', { member_id: m.memberId, cost: 7000 })).body.enough, true);
  assert.equal((await owner.post('/openapi/v1/user/team/check-budget-by-cost', { member_id: m.memberId, cost: 7001 })).body.enough, false);
  await charge(h.app, h.creds.adminToken, team.userId, { amount: 7000, memberId: m.memberId });
  assert.equal((await owner.post('/openapi/v1/user/team/check-budget', { member_id: m.memberId })).body.enough, false, 'remaining 0 is not > 0');
  // next month: a fresh period
  h.clock.set(Date.UTC(2026, 11, 2));
  const dec = (await owner.get('/openapi/v1/user/team/budget-list')).body.budgets.find((b: { member_id: string }) => b.member_id === m.memberId);
  assert.equal(dec.used, 0);
  assert.equal(dec.period_start, '2026-12-01T00:00:00.000Z');
  h.clock.set(Date.UTC(2026, 10, 15));
});

test('budget_count counts members with a budget; Unlimited members are listed with zeros', async () => {
  const list = (await as(h.app, team.owner.apiKey).get('/openapi/v1/user/team/budget-list')).body;
  assert.equal(list.budget_count, 1);
  const owner = list.budgets.find((b: { role: string }) => b.role === 'Owner');
  assert.equal(owner.budget_type, 'Unlimited');
  assert.equal(owner.used, 0);
  assert.equal(owner.budget_limit, 0);
  assert.equal(owner.cycle, undefined);
});

test('roles: Billing updates key budgets; Developer and Basic see only their own; Developer cannot update', async () => {
  const dev = team.members.Developer;
  const billing = as(h.app, team.members.Billing.apiKey);
  assert.equal((await billing.put(KEY_BUDGET, { member_id: dev.memberId, key_id: dev.keyId, budget_type: 'One-time', budget_limit: 50000 })).status, 200);
  const devc = as(h.app, dev.apiKey);
  const put = await devc.put(KEY_BUDGET, { member_id: dev.memberId, key_id: dev.keyId, budget_type: 'Unlimited' });
  assert.equal(put.status, 403);
  assert.equal(put.body.reason, 'FORBIDDEN');
  assert.equal((await keyBudgets(dev.memberId, dev.apiKey)).status, 200);
  assert.equal((await keyBudgets(team.owner.memberId, dev.apiKey)).status, 403);
  const list = (await devc.get('/openapi/v1/user/team/budget-list')).body;
  assert.deepEqual(list.budgets.map((b: { member_id: string }) => b.member_id), [dev.memberId]);
  assert.equal((await devc.post('/openapi/v1/user/team/check-budget', { member_id: team.owner.memberId })).status, 403);
  assert.equal((await as(h.app, team.members.Admin.apiKey).put(MEMBER_BUDGET, { member_id: team.owner.memberId, budget_type: 'One-time', budget_limit: 10000 })).status, 403, 'Admins never set the Owner budget');
});

test('members and keys of another team answer as if they did not exist', async () => {
  const owner = as(h.app, team.owner.apiKey);
  const foreign = other.members.Developer;
  const results = [
    await owner.put(KEY_BUDGET, { member_id: foreign.memberId, key_id: foreign.keyId, budget_type: 'One-time', budget_limit: 10000 }),
    await keyBudgets(foreign.memberId),
    await owner.post('/openapi/v1/user/team/check-budget', { member_id: foreign.memberId }),
    await owner.post('/openapi/v1/user/team/check-budget-by-cost', { member_id: foreign.memberId, cost: 1 }),
    await owner.post('/openapi/v1/user/team/check-key-budget-by-cost', { member_id: foreign.memberId, key_id: foreign.keyId, cost: 1 }),
    // own member, foreign key
    await owner.put(KEY_BUDGET, { member_id: team.owner.memberId, key_id: foreign.keyId, budget_type: 'One-time', budget_limit: 10000 }),
  ];
  for (const r of results) {
    assert.equal(r.status, 404, JSON.stringify(r.body));
    assert.equal(r.body.reason, 'NOT_FOUND');
  }
  // a key of the team but of another member
  const mismatched = await owner.put(KEY_BUDGET, { member_id: team.owner.memberId, key_id: team.members.Basic.keyId, budget_type: 'One-time', budget_limit: 10000 });
  assert.equal(mismatched.status, 404);
});

test('check bodies are validated: negative or missing cost, missing member_id', async () => {
  const owner = as(h.app, team.owner.apiKey);
  for (const [url, body, field] of [
    ['/openapi/v1/user/team/check-budget-by-cost', { member_id: team.owner.memberId, cost: -1 }, 'cost'],
    ['/openapi/v1/user/team/check-budget-by-cost', { member_id: team.owner.memberId }, 'cost'],
    ['/openapi/v1/user/team/check-budget', {}, 'member_id'],
    ['/openapi/v1/user/team/check-key-budget-by-cost', { member_id: team.owner.memberId, cost: 5 }, 'key_id'],
  ] as const) {
    const r = await owner.post(url, body);
    assert.equal(r.status, 400, JSON.stringify(r.body));
    assert.equal(r.body.metadata.field, field);
  }
  assert.equal((await owner.get('/openapi/v1/user/team/key-budget-list')).status, 400);
});
