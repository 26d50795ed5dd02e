// A whole month of vouchers, cash and credit, with model charges in fractions of a unit,
// read back through every bill query: each row's amount is its voucher part plus its paid
// part, exactly, and the rows are the ledger's sums rounded by the one rule. The test keeps
// its own copy of the wallet (vouchers first, then cash, the rest owed; top-ups repay first)
// so it knows every exact part, and ties that copy to the ledger through the balance, the
// operator's usage totals and the monthly statement.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp, type TestApp } from '../../../../test/helpers/app.ts';
import { as } from '../../../../test/helpers/http.ts';
import { charge, createTeam, topup, type Team } from '../../../../test/helpers/factories.ts';

const FAST = { GANTRY_SIM_TTFT_MS: '0', GANTRY_SIM_TOKENS_PER_S: '1000000' };
const MODEL = 'gantry/sim-chat-large';
const IN_MICRO_PER_TOKEN = 5000n; // the seeded price: 5000 units per million input tokens
const OUT_MICRO_PER_TOKEN = 15000n;
const MICRO = 1_000_000n;
const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
const MONTH_START_MS = Date.UTC(2027, 2, 1); // a Monday: the month's weeks start inside it
const MONTH_END_MS = Date.UTC(2027, 3, 1);
const S = (ms: number) => Math.floor(ms / 1000);

let h: TestApp;
let team: Team;
before(async () => {
  h = await buildTestApp({ env: FAST });
  team = await createTeam(h.app, h.creds.adminToken);
  assert.equal((await as(h.app, h.creds.adminToken).put(`/admin/v1/teams/${team.userId}/credit-limit`, { creditLimit: 1_000_000 })).status, 200);
});
after(() => h.close());

/** The one rule, for the exact sums this test keeps: half away from zero (all sums are ≥ 0). */
const round = (micro: bigint) => (2n * micro + MICRO) / (2n * MICRO);
const minBig = (a: bigint, b: bigint) => (a < b ? a : b);

// The test's copy of the wallet, and every charge with its exact parts.
const wallet = { voucher: 0n, cash: 0n, owed: 0n };
let repaidTotal = 0n;
interface Posting {
  atMs: number;
  amount: bigint;
  voucher: bigint;
  cash: bigint;
  debt: bigint;
  billingMethod: number;
  productName: string;
  ownerId: string;
  keyId?: string;
}
const postings: Posting[] = [];

function spend(p: Omit<Posting, 'voucher' | 'cash' | 'debt'>): void {
  const voucher = minBig(wallet.voucher, p.amount);
  const cash = minBig(wallet.cash, p.amount - voucher);
  const debt = p.amount - voucher - cash;
  wallet.voucher -= voucher;
  wallet.cash -= cash;
  wallet.owed += debt;
  postings.push({ ...p, voucher, cash, debt });
}

function repayThenCash(amount: bigint): void {
  const repaid = minBig(wallet.owed, amount);
  wallet.owed -= repaid;
  wallet.cash += amount - repaid;
  repaidTotal += repaid;
}

type Step = { atMs: number; run: () => Promise<void> };

function monthOfSteps(): Step[] {
  const steps: Step[] = [];
  const admin = as(h.app, h.creds.adminToken);
  steps.push({ atMs: MONTH_START_MS + 30 * 60_000, run: async () => {
    assert.equal((await admin.post(`/admin/v1/teams/${team.userId}/vouchers`, { amount: 37, idempotencyKey: 'v-start' })).status, 200);
    wallet.voucher += 37n * MICRO;
    await topup(h.app, h.creds.adminToken, team.userId, 20);
    repayThenCash(20n * MICRO);
  } });
  for (let day = 0; day < 31; day++) {
    const dayMs = MONTH_START_MS + day * DAY_MS;
    for (const hour of [2, 9, 15, 21]) {
      const member = hour === 9 || hour === 21 ? team.members.Developer : team.owner;
      const maxTokens = 20 + ((day * 37 + hour * 11) % 160);
      steps.push({ atMs: dayMs + hour * HOUR_MS + 7 * 60_000, run: async () => {
        const r = await as(h.app, member.apiKey).post('/openai/v1/chat/completions', {
          model: MODEL, messages: [{ role: 'user', content: `day ${day}, hour ${hour}: rivers and stones` }], max_tokens: maxTokens, ignore_eos: true,
        });
        assert.equal(r.status, 200, JSON.stringify(r.body));
        assert.equal(r.body.usage.completion_tokens, maxTokens);
        const amount = BigInt(r.body.usage.prompt_tokens) * IN_MICRO_PER_TOKEN + BigInt(r.body.usage.completion_tokens) * OUT_MICRO_PER_TOKEN;
        spend({ atMs: h.clock.nowMs(), amount, billingMethod: 7, productName: MODEL, ownerId: member.keyId, keyId: member.keyId });
      } });
    }
    if (day % 3 === 1) {
      const units = 3 + (day % 5);
      steps.push({ atMs: dayMs + 11 * HOUR_MS, run: async () => {
        await charge(h.app, h.creds.adminToken, team.userId, { amount: units, productId: 'gpu_h', productName: 'GPU hours', ownerId: 'ins_a' });
        spend({ atMs: h.clock.nowMs(), amount: BigInt(units) * MICRO, billingMethod: 1, productName: 'GPU hours', ownerId: 'ins_a' });
      } });
    }
    const fixedUnits = day === 4 ? 11 : day === 19 ? 23 : 0;
    if (fixedUnits) {
      steps.push({ atMs: dayMs + 12 * HOUR_MS, run: async () => {
        const r = await admin.post(`/admin/v1/teams/${team.userId}/fixed-term-bills`, {
          amount: fixedUnits, productId: 'prd_a100', productName: 'A100 monthly', productCategory: 'gpu', ownerId: 'ins_m',
          tradeType: day === 4 ? 'monthly_new_buy' : 'monthly_re_config', basePrice: fixedUnits, billNum: '1',
          startTime: S(dayMs), endTime: S(dayMs + 30 * DAY_MS), idempotencyKey: `fixed-${day}`,
        });
        assert.equal(r.status, 200, JSON.stringify(r.body));
        spend({ atMs: h.clock.nowMs(), amount: BigInt(fixedUnits) * MICRO, billingMethod: 2, productName: 'A100 monthly', ownerId: 'ins_m' });
      } });
    }
    // Cash and vouchers arrive while debt is owed: top-ups repay first.
    if (day === 11 || day === 24) {
      const units = day === 11 ? 15 : 100;
      steps.push({ atMs: dayMs + 13 * HOUR_MS, run: async () => {
        await topup(h.app, h.creds.adminToken, team.userId, units);
        repayThenCash(BigInt(units) * MICRO);
      } });
    }
    if (day === 14) {
      steps.push({ atMs: dayMs + 13 * HOUR_MS, run: async () => {
        assert.equal((await admin.post(`/admin/v1/teams/${team.userId}/vouchers`, { amount: 9, idempotencyKey: 'v-mid' })).status, 200);
        wallet.voucher += 9n * MICRO;
      } });
    }
  }
  return steps.sort((a, b) => a.atMs - b.atMs);
}

const BUCKETS = {
  Hour: (ms: number) => ms - (ms % HOUR_MS),
  Day: (ms: number) => ms - (ms % DAY_MS),
  Week: (ms: number) => {
    const day = ms - (ms % DAY_MS);
    return day - ((new Date(day).getUTCDay() + 6) % 7) * DAY_MS; // ISO weeks start on Monday
  },
  Month: (ms: number) => Date.UTC(new Date(ms).getUTCFullYear(), new Date(ms).getUTCMonth(), 1),
} as const;
type Cycle = keyof typeof BUCKETS;

interface Sums { amount: bigint; voucher: bigint; n: number }

/** The exact sums each bill row of `cycle` must show, keyed as the row identifies itself. */
function expectedRows(cycle: Cycle, of: (p: Posting) => boolean): Map<string, Sums> {
  const out = new Map<string, Sums>();
  for (const p of postings.filter(of)) {
    const id = `${S(BUCKETS[cycle](p.atMs))}|${p.billingMethod}|${p.productName}|${p.ownerId}`;
    const s = out.get(id) ?? { amount: 0n, voucher: 0n, n: 0 };
    out.set(id, { amount: s.amount + p.amount, voucher: s.voucher + p.voucher, n: s.n + 1 });
  }
  return out;
}

interface BillRow { startTime: string; billingMethod: number; productName: string; ownerID: string; amount: string; voucherAmount: string; payAmount: string; payAmountDisplay: number }

/** Rows whose parts, rounded each on its own, would not add up to the rounded amount. */
let rowsRoundingApart = 0;

function checkRows(what: string, rows: BillRow[], expected: Map<string, Sums>): void {
  assert.equal(rows.length, expected.size, `${what}: one row per bucket, product and owner`);
  let amountUnits = 0n;
  let amountMicro = 0n;
  for (const row of rows) {
    const label = `${what} ${JSON.stringify(row)}`;
    assert.equal(BigInt(row.amount), BigInt(row.voucherAmount) + BigInt(row.payAmount), `amount = voucherAmount + payAmount: ${label}`);
    assert.equal(row.payAmountDisplay, Number(row.payAmount) / 10000, `payAmountDisplay is payAmount in USD: ${label}`);
    const exact = expected.get(`${row.startTime}|${row.billingMethod}|${row.productName}|${row.ownerID}`);
    assert.ok(exact, `a row the ledger has: ${label}`);
    assert.equal(row.amount, String(round(exact.amount)), `amount is the exact sum rounded: ${label}`);
    assert.equal(row.voucherAmount, String(round(exact.voucher)), `voucherAmount is the exact voucher part rounded: ${label}`);
    if (round(exact.voucher) + round(exact.amount - exact.voucher) !== round(exact.amount)) rowsRoundingApart++;
    amountUnits += BigInt(row.amount);
    amountMicro += exact.amount;
  }
  // The rows' total is the ledger's total, off by at most half a unit per row.
  const driftMicro = amountUnits * MICRO - amountMicro;
  assert.ok(2n * (driftMicro < 0n ? -driftMicro : driftMicro) <= BigInt(rows.length) * MICRO, `${what}: rows total ${amountUnits}, ledger ${amountMicro} micro`);
}

test('a month of vouchers, cash and credit: every bill row adds up and matches the ledger', async () => {
  for (const step of monthOfSteps()) {
    h.clock.set(step.atMs);
    await step.run();
  }
  h.clock.set(MONTH_END_MS + 2 * DAY_MS);
  assert.ok(wallet.owed > 0n && wallet.voucher === 0n && wallet.cash === 0n, 'the month ends in debt');
  assert.ok(postings.some((p) => p.voucher > 0n && p.voucher < p.amount && p.voucher % MICRO !== 0n), 'a voucher ran out part-way through a charge');
  assert.ok(postings.some((p) => p.debt > 0n && p.cash > 0n), 'cash ran out part-way through a charge');
  assert.ok(repaidTotal > 0n, 'top-ups repaid debt');

  const owner = as(h.app, team.owner.apiKey);
  const window = { startTime: S(MONTH_START_MS), endTime: S(MONTH_END_MS) - 1 };
  for (const cycleType of ['Hour', 'Day', 'Week', 'Month'] as const) {
    const r = await owner.get('/openapi/v1/billing/bill/list', { ...window, cycleType, productCategory: 'summary' });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    checkRows(`usage ${cycleType}`, r.body.bills, expectedRows(cycleType, () => true));
  }
  for (const cycleType of ['Day', 'Week', 'Month'] as const) {
    const r = await owner.get('/openapi/v1/billing/apikey/bill/list', { ...window, cycleType });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    checkRows(`API-key ${cycleType}`, r.body.bills, expectedRows(cycleType, (p) => p.keyId !== undefined));
  }
  const fixed = await owner.get('/openapi/v1/billing/bill/monthly/list', window);
  assert.equal(fixed.status, 200, JSON.stringify(fixed.body));
  // A fixed-term row is one charge: its createTime is the charge's time, its startTime the term's.
  checkRows('fixed-term', fixed.body.bills.map((b: BillRow & { createTime: string }) => ({ ...b, startTime: b.createTime })),
    expectedRows('Hour', (p) => p.billingMethod === 2));
  assert.ok(rowsRoundingApart > 0, 'the month has rows whose parts, rounded each on its own, would not add up');

  // The test's wallet is the ledger's: balance, the operator's usage totals, the statement.
  const sum = (f: (p: Posting) => bigint, of: (p: Posting) => boolean = () => true) => postings.filter(of).reduce((s, p) => s + f(p), 0n);
  const balance = (await owner.get('/openapi/v1/billing/balance/detail')).body;
  assert.equal(balance.outstandingInvoices, String(round(wallet.owed)));
  assert.equal(balance.cashBalance, '0');
  const usage = (await as(h.app, h.creds.adminToken).get(`/admin/v1/teams/${team.userId}/usage`)).body;
  assert.equal(usage.costMicro, String(sum((p) => p.amount, (p) => p.billingMethod === 7)));
  const statement = (await owner.get('/openapi/v1/billing/monthly/bill', { startMonth: '2027-03' })).body.data;
  const [V, C, D, A] = [sum((p) => p.voucher), sum((p) => p.cash), sum((p) => p.debt), sum((p) => p.amount)];
  assert.equal(V + C + D, A);
  assert.deepEqual(statement, [{
    billId: statement[0].billId, userId: team.userId, billingMonth: '2027-03',
    totalAmount: String(round(A)), originTotalAmount: String(round(A)),
    voucherPayAmount: String(round(V)), cashPayAmount: String(round(V + C) - round(V)), debtAmount: String(round(A) - round(V + C)),
    status: 'outed', invoiceUrl: '', startTime: String(S(MONTH_START_MS)), endTime: String(S(MONTH_END_MS)),
    repaidAmount: String(round(V + C + repaidTotal) - round(V + C)),
  }]);
});
