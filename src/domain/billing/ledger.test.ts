import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { applyToWallet } from './ledger.ts';
import { microToUnits, splitMicroToUnits } from '../../lib/money.ts';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.ts';
import { as } from '../../../test/helpers/http.ts';
import { createTeam } from '../../../test/helpers/factories.ts';

test('a charge spends vouchers first, then cash, and owes the rest', () => {
  const w = { voucherMicro: 100n, cashMicro: 50n, outstandingMicro: 0n };
  assert.deepEqual(applyToWallet(w, 'charge', 30n), { wallet: { voucherMicro: 70n, cashMicro: 50n, outstandingMicro: 0n }, voucher: 30n, cash: 0n, debt: 0n });
  assert.deepEqual(applyToWallet(w, 'charge', 120n), { wallet: { voucherMicro: 0n, cashMicro: 30n, outstandingMicro: 0n }, voucher: 100n, cash: 20n, debt: 0n });
  assert.deepEqual(applyToWallet(w, 'charge', 200n), { wallet: { voucherMicro: 0n, cashMicro: 0n, outstandingMicro: 50n }, voucher: 100n, cash: 50n, debt: 50n });
});

test('a top-up repays what is owed before it adds cash', () => {
  const w = { voucherMicro: 0n, cashMicro: 0n, outstandingMicro: 40n };
  assert.deepEqual(applyToWallet(w, 'topup', 30n).wallet, { voucherMicro: 0n, cashMicro: 0n, outstandingMicro: 10n });
  assert.deepEqual(applyToWallet(w, 'topup', 100n).wallet, { voucherMicro: 0n, cashMicro: 60n, outstandingMicro: 0n });
});

test('the edge rounding rule is half away from zero', () => {
  assert.equal(microToUnits(1_499_999n), 1n);
  assert.equal(microToUnits(1_500_000n), 2n);
  assert.equal(microToUnits(-1_500_000n), -2n);
  assert.equal(microToUnits(-1_499_999n), -1n);
});

test('parts of an amount are shown so that they add up to the amount shown', () => {
  // 337.4 + 58.4 = 395.8: rounded each on its own they showed 337 + 58 beside an amount of 396.
  assert.deepEqual(splitMicroToUnits([337_400_000n, 58_400_000n]), [337n, 59n]);
  // Both halves round up on their own (1 + 1), their sum of exactly 1 unit does not.
  assert.deepEqual(splitMicroToUnits([500_000n, 500_000n]), [1n, 0n]);
  assert.deepEqual(splitMicroToUnits([500_000n, 499_999n, 1n, 0n]), [1n, 0n, 0n, 0n]);
  assert.deepEqual(splitMicroToUnits([0n, 0n]), [0n, 0n]);
  // Any parts: none shown negative, the first within half a unit, the rest within one, the sum exact.
  let seed = 7;
  const next = () => {
    seed = (seed * 16807) % 2147483647;
    return BigInt(seed % 3_000_000);
  };
  for (let i = 0; i < 2000; i++) {
    const parts = [next(), next(), next(), next()];
    const shown = splitMicroToUnits(parts);
    const sum = parts.reduce((a, b) => a + b, 0n);
    assert.equal(shown.reduce((a, b) => a + b, 0n), microToUnits(sum), String(parts));
    assert.equal(shown[0], microToUnits(parts[0]!), String(parts));
    shown.forEach((units, k) => {
      const off = units * 1_000_000n - parts[k]!;
      assert.ok(units >= 0n && off < 1_000_000n && off > -1_000_000n, String(parts));
    });
  }
});

let h: TestApp;
before(async () => { h = await buildTestApp(); });
after(() => h.close());

test('balance detail follows vouchers → cash → outstanding up to the credit limit', async () => {
  const admin = as(h.app, h.creds.adminToken);
  const team = await createTeam(h.app, h.creds.adminToken);
  const bal = async () => (await as(h.app, team.owner.apiKey).get('/openapi/v1/billing/balance/detail')).body;
  assert.deepEqual(await bal(), { availableBalance: '0', cashBalance: '0', creditLimit: '0', pendingCharges: '0', outstandingInvoices: '0', voucherBalance: '0' });
  await admin.post(`/admin/v1/teams/${team.userId}/vouchers`, { amount: 10000, idempotencyKey: 'v1' });
  await admin.post(`/admin/v1/teams/${team.userId}/topups`, { amount: 50000, idempotencyKey: 't1' });
  await admin.put(`/admin/v1/teams/${team.userId}/credit-limit`, { creditLimit: 20000 });
  assert.deepEqual(await bal(), { availableBalance: '80000', cashBalance: '50000', creditLimit: '20000', pendingCharges: '0', outstandingInvoices: '0', voucherBalance: '10000' });
  const c = await admin.post(`/admin/v1/teams/${team.userId}/charges`, { amount: 70000, category: 'gpu', billingMethod: 1, productId: 'p', productName: 'P', idempotencyKey: 'c1' });
  assert.equal(c.status, 200);
  assert.deepEqual({ v: c.body.voucherAmount, c: c.body.cashAmount, d: c.body.debtAmount }, { v: '10000', c: '50000', d: '10000' });
  assert.deepEqual(await bal(), { availableBalance: '10000', cashBalance: '0', creditLimit: '20000', pendingCharges: '0', outstandingInvoices: '10000', voucherBalance: '0' });
  await admin.post(`/admin/v1/teams/${team.userId}/topups`, { amount: 15000, idempotencyKey: 't2' });
  assert.deepEqual(await bal(), { availableBalance: '25000', cashBalance: '5000', creditLimit: '20000', pendingCharges: '0', outstandingInvoices: '0', voucherBalance: '0' });
});

test('a repeated idempotency key is a no-op; the same key with another amount is a conflict', async () => {
  const admin = as(h.app, h.creds.adminToken);
  const team = await createTeam(h.app, h.creds.adminToken);
  const body = { amount: 12345, category: 'llm', billingMethod: 7, productId: 'm', productName: 'M', idempotencyKey: 'same' };
  await admin.post(`/admin/v1/teams/${team.userId}/topups`, { amount: 100000, idempotencyKey: 'fund' });
  const results = await Promise.all(Array.from({ length: 10 }, () => admin.post(`/admin/v1/teams/${team.userId}/charges`, body)));
  assert.ok(results.every((r) => r.status === 200));
  assert.equal(results.filter((r) => !r.body.duplicate).length, 1, 'exactly one posting');
  assert.equal(new Set(results.map((r) => r.body.ledgerId)).size, 1);
  const bal = (await as(h.app, team.owner.apiKey).get('/openapi/v1/billing/balance/detail')).body;
  assert.equal(bal.cashBalance, String(100000 - 12345));
  const conflict = await admin.post(`/admin/v1/teams/${team.userId}/charges`, { ...body, amount: 1 });
  assert.equal(conflict.status, 409);
  assert.equal(conflict.body.reason, 'CONFLICT');
  assert.equal((await as(h.app, team.owner.apiKey).get('/openapi/v1/billing/balance/detail')).body.cashBalance, String(100000 - 12345));
});

test('postings are refused for bad amounts, methods and unknown teams', async () => {
  const admin = as(h.app, h.creds.adminToken);
  const team = await createTeam(h.app, h.creds.adminToken);
  const base = { amount: 1, category: 'gpu', billingMethod: 1, productId: 'p', productName: 'P', idempotencyKey: 'x' };
  for (const [body, field] of [[{ ...base, amount: 0 }, 'amount'], [{ ...base, billingMethod: 9 }, 'billingMethod'], [{ ...base, idempotencyKey: '' }, 'idempotencyKey']] as const) {
    const r = await admin.post(`/admin/v1/teams/${team.userId}/charges`, body);
    assert.equal(r.status, 400, JSON.stringify(r.body));
    assert.equal(r.body.metadata.field, field);
  }
  assert.equal((await admin.post('/admin/v1/teams/usr_nope/topups', { amount: 1, idempotencyKey: 'a' })).status, 404);
  // a key of another team cannot be attributed
  const other = await createTeam(h.app, h.creds.adminToken);
  assert.equal((await admin.post(`/admin/v1/teams/${team.userId}/charges`, { ...base, keyId: other.owner.keyId })).status, 404);
});

test('the seeded first team starts with a $100 voucher', async () => {
  const bal = (await as(h.app, h.creds.apiKey).get('/openapi/v1/billing/balance/detail')).body;
  assert.equal(bal.availableBalance, '1000000');
  assert.equal(bal.cashBalance, '0');
});

test('concurrent postings serialize per team: the balance equals the ledger replayed', async () => {
  const admin = as(h.app, h.creds.adminToken);
  const team = await createTeam(h.app, h.creds.adminToken);
  await admin.post(`/admin/v1/teams/${team.userId}/vouchers`, { amount: 3000, idempotencyKey: 'v' });
  await admin.post(`/admin/v1/teams/${team.userId}/topups`, { amount: 5000, idempotencyKey: 't' });
  const amounts = Array.from({ length: 60 }, (_, i) => 37 + i * 11);
  const results = await Promise.all(amounts.map((amount, i) => admin.post(`/admin/v1/teams/${team.userId}/charges`, {
    amount, category: 'gpu', billingMethod: 1, productId: 'p', productName: 'P', idempotencyKey: `c${i}`,
  })));
  assert.ok(results.every((r) => r.status === 200 && !r.body.duplicate));
  const total = amounts.reduce((a, b) => a + b, 0);
  const sum = (k: string) => results.reduce((a, r) => a + Number(r.body[k]), 0);
  assert.equal(sum('voucherAmount'), 3000, 'vouchers spent exactly once');
  assert.equal(sum('cashAmount'), 5000, 'cash spent exactly once');
  assert.equal(sum('debtAmount'), total - 8000);
  const bal = (await as(h.app, team.owner.apiKey).get('/openapi/v1/billing/balance/detail')).body;
  assert.deepEqual(bal, { availableBalance: String(-(total - 8000)), cashBalance: '0', creditLimit: '0', pendingCharges: '0', outstandingInvoices: String(total - 8000), voucherBalance: '0' });
});
