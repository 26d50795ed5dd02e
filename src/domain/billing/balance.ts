import { microToUnits } from '../../lib/money.ts';
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
  const available = microToUnits(spendableMicro(team, liveReservedMicro));
  const cash = microToUnits(team.cashMicro);
  const credit = microToUnits(team.creditLimitMicro);
  const pending = microToUnits(team.pendingMicro + liveReservedMicro);
  const owed = microToUnits(team.outstandingMicro);
  return {
    availableBalance: available.toString(),
    cashBalance: cash.toString(),
    creditLimit: credit.toString(),
    pendingCharges: pending.toString(),
    outstandingInvoices: owed.toString(),
    // Gantry's addition: the voucher part of availableBalance, so a client can show what the
    // available balance is made of. It is the rest of the parts as shown, so that they add up
    // exactly in whole units (the billing rule: parts add up); it differs from the vouchers
    // rounded alone by a unit or two ($0.0002) at most, when the other parts have fractions.
    voucherBalance: (available - cash - credit + owed + pending).toString(),
  };
}

/** The balance as the interface shows it, live reservations of work in flight included. */
export async function getBalance(ctx: Ctx, spend: { reservedMicro(scope: BudgetScope): Promise<bigint> }, teamId: string) {
  const team = await findTeam(ctx.db, teamId);
  if (!team) throw notFound('team', teamId);
  return balanceView(team, await spend.reservedMicro(teamScope(teamId)));
}
