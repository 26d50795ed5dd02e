// The monthly statement through HTTP: one row per UTC month with charges, newest first;
// statuses by the clock; top-ups repay debt oldest month first; parts add up; paging;
// validation; another team's data; roles.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp, type TestApp } from '../../../../test/helpers/app.ts';
import { as } from '../../../../test/helpers/http.ts';
import { charge, createTeam, topup, type Team } from '../../../../test/helpers/factories.ts';

const URL = '/openapi/v1/billing/monthly/bill';
const at = (iso: string) => Date.parse(iso);
const S = (iso: string) => String(Date.parse(iso) / 1000);

let h: TestApp;
before(async () => { h = await buildTestApp(); });
after(() => h.close());

interface Row {
  billId: string; userId: string; billingMonth: string; totalAmount: string; originTotalAmount: string;
  voucherPayAmount: string; cashPayAmount: string; debtAmount: string; status: string; invoiceUrl: string;
  startTime: string; endTime: string; repaidAmount: string;
}

async function statements(team: Team, query: Record<string, string | number> = {}): Promise<Row[]> {
  const r = await as(h.app, team.owner.apiKey).get(URL, query);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  for (const row of r.body.data as Row[]) {
    assert.equal(row.userId, team.userId);
    assert.equal(BigInt(row.totalAmount), BigInt(row.voucherPayAmount) + BigInt(row.cashPayAmount) + BigInt(row.debtAmount), JSON.stringify(row));
    assert.ok(BigInt(row.repaidAmount) >= 0n && BigInt(row.repaidAmount) <= BigInt(row.debtAmount), JSON.stringify(row));
    assert.equal(row.originTotalAmount, row.totalAmount);
    assert.equal(row.invoiceUrl, '');
  }
  return r.body.data;
}

/** The rows reduced to what changes: month, status, total/voucher/cash/debt/repaid. */
const brief = (rows: Row[]) => rows.map((r) => `${r.billingMonth} ${r.status} ${r.totalAmount}=${r.voucherPayAmount}+${r.cashPayAmount}+${r.debtAmount} repaid ${r.repaidAmount}`);

async function teamOnCredit(): Promise<Team> {
  const team = await createTeam(h.app, h.creds.adminToken);
  const r = await as(h.app, h.creds.adminToken).put(`/admin/v1/teams/${team.userId}/credit-limit`, { creditLimit: 10_000_000 });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return team;
}

async function voucher(team: Team, amount: number) {
  const r = await as(h.app, h.creds.adminToken).post(`/admin/v1/teams/${team.userId}/vouchers`, { amount, idempotencyKey: `v-${Math.random()}` });
  assert.equal(r.status, 200, JSON.stringify(r.body));
}

test('statuses follow the clock, and top-ups repay debt oldest month first', async () => {
  const team = await teamOnCredit();
  const admin = h.creds.adminToken;
  h.clock.set(at('2027-01-10T08:00:00Z'));
  await charge(h.app, admin, team.userId, { amount: 1000 }); // all owed
  h.clock.set(at('2027-02-05T08:00:00Z'));
  await voucher(team, 300);
  await charge(h.app, admin, team.userId, { amount: 500 }); // 300 voucher, 200 owed
  h.clock.set(at('2027-03-03T08:00:00Z'));
  await topup(h.app, admin, team.userId, 600); // repays 600 of January's 1000
  await charge(h.app, admin, team.userId, { amount: 100 }); // owed again

  h.clock.set(at('2027-03-10T00:00:00Z'));
  const rows = await statements(team);
  assert.deepEqual(brief(rows), [
    '2027-03 pending 100=0+0+100 repaid 0',
    '2027-02 outed 500=300+0+200 repaid 0',
    '2027-01 overdue 1000=0+0+1000 repaid 600',
  ]);
  const feb = rows[1]!;
  assert.equal(feb.startTime, S('2027-02-01T00:00:00Z'));
  assert.equal(feb.endTime, S('2027-03-01T00:00:00Z'));
  assert.match(feb.billId, /^stm_[0-9a-z]{22}$/);
  assert.equal(new Set(rows.map((r) => r.billId)).size, 3, 'one id per month');
  assert.deepEqual((await statements(team)).map((r) => r.billId), rows.map((r) => r.billId), 'the same month keeps its id');

  // February's debt is due 15 days after February ends: outed until then, overdue from then.
  h.clock.set(at('2027-03-16T00:00:00Z') - 1);
  assert.equal((await statements(team))[1]!.status, 'outed');
  h.clock.set(at('2027-03-16T00:00:00Z'));
  assert.equal((await statements(team))[1]!.status, 'overdue');

  // The next top-up finishes January first, then starts on February.
  h.clock.set(at('2027-03-20T00:00:00Z'));
  await topup(h.app, admin, team.userId, 450);
  assert.deepEqual(brief(await statements(team)), [
    '2027-03 pending 100=0+0+100 repaid 0',
    '2027-02 overdue 500=300+0+200 repaid 50',
    '2027-01 paid 1000=0+0+1000 repaid 1000',
  ]);
  // Everything repaid, with cash left over; the current month stays pending all the same.
  await topup(h.app, admin, team.userId, 1000);
  await charge(h.app, admin, team.userId, { amount: 70 }); // paid in cash
  assert.deepEqual(brief(await statements(team)), [
    '2027-03 pending 170=0+70+100 repaid 100',
    '2027-02 paid 500=300+0+200 repaid 200',
    '2027-01 paid 1000=0+0+1000 repaid 1000',
  ]);
  // Once March has ended it is paid: nothing of it is owed.
  h.clock.set(at('2027-04-01T00:00:00Z'));
  assert.deepEqual(brief(await statements(team)).slice(0, 2), [
    '2027-03 paid 170=0+70+100 repaid 100',
    '2027-02 paid 500=300+0+200 repaid 200',
  ]);
  const bal = (await as(h.app, team.owner.apiKey).get('/openapi/v1/billing/balance/detail')).body;
  assert.equal(bal.outstandingInvoices, '0');
  assert.equal(bal.cashBalance, String(600 + 450 + 1000 - 1300 - 70));
});

test('a closed month that is never repaid goes from outed to overdue; months without charges are left out', async () => {
  const team = await teamOnCredit();
  h.clock.set(at('2027-05-31T23:59:59Z'));
  await charge(h.app, h.creds.adminToken, team.userId, { amount: 42 });
  h.clock.set(at('2027-07-02T00:00:00Z')); // June had no charges
  await charge(h.app, h.creds.adminToken, team.userId, { amount: 8 });
  assert.deepEqual(brief(await statements(team)), ['2027-07 pending 8=0+0+8 repaid 0', '2027-05 overdue 42=0+0+42 repaid 0']);
  h.clock.set(at('2027-06-15T00:00:00Z'));
  assert.deepEqual(brief(await statements(team)), ['2027-05 outed 42=0+0+42 repaid 0'], 'a charge after now is not on the statement yet');
});

test('paging: newest first, 10 a page by default, the last 12 months unless startMonth says otherwise', async () => {
  const team = await teamOnCredit();
  // One charge in each month of 2026-01 .. 2027-02 (14 months), amount = the month's number in that run.
  for (let i = 0; i < 14; i++) {
    h.clock.set(Date.UTC(2026, i, 3, 12));
    await charge(h.app, h.creds.adminToken, team.userId, { amount: i + 1 });
  }
  await topup(h.app, h.creds.adminToken, team.userId, 6); // repays 2026-01 (1) and 2026-02 (2) and 3 of 2026-03's 3
  h.clock.set(at('2027-02-20T00:00:00Z'));
  const months = (rows: Row[]) => rows.map((r) => r.billingMonth);
  const first = await statements(team);
  assert.deepEqual(months(first), ['2027-02', '2027-01', '2026-12', '2026-11', '2026-10', '2026-09', '2026-08', '2026-07', '2026-06', '2026-05']);
  assert.deepEqual(months(await statements(team, { page: 2 })), ['2026-04', '2026-03']);
  assert.deepEqual(months(await statements(team, { page: 3 })), []);
  const all = await statements(team, { startMonth: '2025-06', pageSize: 100 });
  assert.equal(all.length, 14);
  assert.deepEqual(brief(all.slice(-3)), [
    '2026-03 paid 3=0+0+3 repaid 3',
    '2026-02 paid 2=0+0+2 repaid 2',
    '2026-01 paid 1=0+0+1 repaid 1',
  ]);
  assert.deepEqual(months(await statements(team, { startMonth: '2026-12', pageSize: 2 })), ['2027-02', '2027-01']);
  assert.deepEqual(months(await statements(team, { startMonth: '2026-12', pageSize: 2, page: 2 })), ['2026-12']);
  // Months before startMonth are not shown, but they still took the repayment first.
  assert.deepEqual(brief(await statements(team, { startMonth: '2026-03', pageSize: 100 })).slice(-1), ['2026-03 paid 3=0+0+3 repaid 3']);
  assert.deepEqual(await statements(team, { startMonth: '2027-03' }), [], 'a start after now shows nothing');
});

test('bad startMonth, page or pageSize: 400 in the billing family naming the field', async () => {
  const team = await createTeam(h.app, h.creds.adminToken);
  const owner = as(h.app, team.owner.apiKey);
  const cases: Array<[Record<string, string | number>, string]> = [
    [{ startMonth: '2027-13' }, 'startMonth'], [{ startMonth: '2027-1' }, 'startMonth'], [{ startMonth: '202701' }, 'startMonth'],
    [{ startMonth: '0099-01' }, 'startMonth'], [{ startMonth: '' }, 'startMonth'],
    [{ page: 0 }, 'page'], [{ page: -1 }, 'page'], [{ page: 'x' }, 'page'], [{ page: 1.5 }, 'page'],
    [{ pageSize: 0 }, 'pageSize'], [{ pageSize: 101 }, 'pageSize'], [{ pageSize: 'ten' }, 'pageSize'],
  ];
  for (const [query, field] of cases) {
    const r = await owner.get(URL, query);
    assert.equal(r.status, 400, JSON.stringify(query));
    assert.equal(r.body.code, 400);
    assert.equal(r.body.reason, 'INVALID_BILL_CYCLE', JSON.stringify(query));
    assert.equal(r.body.metadata.field, field, JSON.stringify(query));
  }
  assert.equal((await owner.get(URL, { startMonth: '1970-01', page: 1, pageSize: 100 })).status, 200);
});

test("a team never sees another team's statements", async () => {
  const a = await teamOnCredit();
  const b = await createTeam(h.app, h.creds.adminToken);
  h.clock.set(at('2027-08-10T00:00:00Z'));
  await charge(h.app, h.creds.adminToken, a.userId, { amount: 9 });
  assert.equal((await statements(a)).length, 1);
  assert.deepEqual(await statements(b, { startMonth: '1970-01', pageSize: 100 }), []);
  await topup(h.app, h.creds.adminToken, b.userId, 5); // b's top-up repays nothing of a's
  assert.equal((await statements(a))[0]!.repaidAmount, '0');
});

test('statements: Owner, Admin and Billing read them; Developer and Basic are refused', async () => {
  const team = await createTeam(h.app, h.creds.adminToken);
  for (const role of ['Owner', 'Admin', 'Billing'] as const) {
    assert.equal((await as(h.app, team.members[role].apiKey).get(URL)).status, 200, role);
  }
  for (const role of ['Developer', 'Basic'] as const) {
    const r = await as(h.app, team.members[role].apiKey).get(URL);
    assert.equal(r.status, 403, role);
    assert.equal(r.body.reason, 'FORBIDDEN');
  }
  const none = await as(h.app, 'sk_not_a_key').get(URL);
  assert.equal(none.status, 401);
  assert.equal(none.body.reason, 'UNAUTHORIZED');
});
