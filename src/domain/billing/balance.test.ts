// The balance's parts add up to the available balance exactly in whole units, even when the
// parts carry fractions of a unit (GPU time is charged per second, in micro-units).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { balanceView } from './balance.ts';
import type { TeamRow } from '../../store/accounts.ts';

test('voucherBalance is the rest of the parts as shown: they add up to availableBalance in whole units', () => {
  // vouchers 851500.4 units, cash 10.6, pending 3499.6 (+ 0.3 reserved live): each rounded alone, they would not add up
  const team = { voucherMicro: 851_500_400_000n, cashMicro: 10_600_000n, creditLimitMicro: 0n, outstandingMicro: 0n, pendingMicro: 3_499_600_000n } as unknown as TeamRow;
  const b = balanceView(team, 300_000n);
  assert.deepEqual(b, { availableBalance: '848011', cashBalance: '11', creditLimit: '0', pendingCharges: '3500', outstandingInvoices: '0', voucherBalance: '851500' });
  const sum = BigInt(b.voucherBalance) + BigInt(b.cashBalance) + BigInt(b.creditLimit) - BigInt(b.outstandingInvoices) - BigInt(b.pendingCharges);
  assert.equal(sum, BigInt(b.availableBalance));
  // with debt: owed and credit take part the same way
  const owing = balanceView({ voucherMicro: 0n, cashMicro: 0n, creditLimitMicro: 100_000_000_000n, outstandingMicro: 2_000_500_000n, pendingMicro: 0n } as unknown as TeamRow, 0n);
  assert.equal(BigInt(owing.voucherBalance) + BigInt(owing.creditLimit) - BigInt(owing.outstandingInvoices), BigInt(owing.availableBalance));
  // no vouchers, yet the rounding of 2000.5 owed lands on them: at most two units off, as documented
  assert.equal(owing.voucherBalance, '1');
});
