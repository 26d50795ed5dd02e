import { microToUnitString } from '../../lib/money.ts';
import { findTeam, type TeamRow } from '../../store/accounts.ts';
import { notFound } from '../../lib/errors.ts';
import type { Ctx } from '../context.ts';
import { teamScope, type BudgetScope } from '../spend/scopes.ts';

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

/** The balance as the interface shows it, live reservations of work in flight included. */
export async function getBalance(ctx: Ctx, spend: { reservedMicro(scope: BudgetScope): Promise<bigint> }, teamId: string) {
  const team = await findTeam(ctx.db, teamId);
  if (!team) throw notFound('team', teamId);
  return balanceView(team, await spend.reservedMicro(teamScope(teamId)));
}
