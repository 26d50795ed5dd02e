import { microToUnitString } from '../../../lib/money.ts';
import type { Posted } from '../../../domain/billing/ledger.ts';

export function postedView(p: Posted) {
  return {
    ledgerId: p.entry.id,
    duplicate: p.duplicate,
    amount: microToUnitString(p.entry.amountMicro),
    voucherAmount: microToUnitString(p.entry.voucherMicro),
    cashAmount: microToUnitString(p.entry.cashMicro),
    debtAmount: microToUnitString(p.entry.debtMicro),
  };
}
