import { microToUnitString } from '../../lib/money.ts';
import type { TeamRow } from '../../store/accounts.ts';

/**
 * What the account can still spend, in micro-units: vouchers + cash + the unused part of
 * the credit limit, minus what work in flight has reserved. May be negative.
 */
export function spendableMicro(team: TeamRow, liveReservedMicro: bigint): bigint {
  return team.voucherMicro + team.cashMicro + team.creditLimitMicro - team.outstandingMicro
    - team.pendingMicro - liveReservedMicro;
}

export function balanceView(team: TeamRow, liveReservedMicro: bigint) {
  return {
    availableBalance: microToUnitString(spendableMicro(team, liveReservedMicro)),
    cashBalance: microToUnitString(team.cashMicro),
    creditLimit: microToUnitString(team.creditLimitMicro),
    pendingCharges: microToUnitString(team.pendingMicro + liveReservedMicro),
    outstandingInvoices: microToUnitString(team.outstandingMicro),
  };
}
