import { microToUnitString, splitMicroToUnits } from '../../../lib/money.ts';
import type { Posted } from '../../../domain/billing/ledger.ts';

export function postedView(p: Posted) {
  const e = p.entry;
  // A charge's parts add up to its amount in whole units (the bills' rounding rule); a
  // top-up's "debt" is what it repaid (negative), shown as it is.
  const [voucher, cash, debt] = e.kind === 'charge'
    ? splitMicroToUnits([e.voucherMicro, e.cashMicro, e.debtMicro]).map(String)
    : [microToUnitString(e.voucherMicro), microToUnitString(e.cashMicro), microToUnitString(e.debtMicro)];
  return {
    ledgerId: e.id,
    duplicate: p.duplicate,
    amount: microToUnitString(e.amountMicro),
    voucherAmount: voucher!,
    cashAmount: cash!,
    debtAmount: debt!,
  };
}
