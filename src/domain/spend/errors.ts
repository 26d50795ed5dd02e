// The reasons spend is refused with: the account balance (NOT_ENOUGH_BALANCE) or a member or
// key budget (BUDGET_EXCEEDED); each route family tells them in its own words (the GPU family
// says BALANCE_NOT_ENOUGH, the media family BILLING_BALANCE_NOT_ENOUGH). Besides: limits that
// change faster than they load (SERVICE_NOT_AVAILABLE, retry), and a refusal that cannot be (UNKNOWN).
import { AppError, type Reason } from '../../lib/errors.ts';
import { describeMicro, microToUnits } from '../../lib/money.ts';
import type { BudgetScope } from './scopes.ts';

export const SPEND_REASONS = ['NOT_ENOUGH_BALANCE', 'BUDGET_EXCEEDED', 'SERVICE_NOT_AVAILABLE', 'UNKNOWN'] as const satisfies readonly Reason[];

/** The scopes' state changed under every loading round: nothing was admitted, retry. */
export function loadingOutpaced(): AppError {
  return new AppError('SERVICE_NOT_AVAILABLE', 'budget state is changing too fast to admit the request; retry');
}

/** A rate limit refused spend that asked for none (a bug, told as an internal error). */
export function unexpectedRateRefusal(): AppError {
  return new AppError('UNKNOWN', 'a rate limit refused spend that has none');
}

/**
 * The refusal of spend that a limit cannot cover: NOT_ENOUGH_BALANCE for the account,
 * BUDGET_EXCEEDED for a member or key budget (each route family tells it in its own words),
 * naming the limit, what is left and what was needed, in units and USD.
 */
export function spendRefusal(scope: BudgetScope, availableMicro: bigint, costMicro: bigint, what: string, headers?: Record<string, string>): AppError {
  const left = availableMicro > 0n ? availableMicro : 0n;
  const meta = {
    remaining: Number(microToUnits(left)), required: Number(microToUnits(costMicro)),
    remainingMicro: left.toString(), requiredMicro: costMicro.toString(),
  };
  const amounts = `${describeMicro(left)} left, ${describeMicro(costMicro)} needed`;
  if (scope.kind === 'team') {
    return new AppError('NOT_ENOUGH_BALANCE', `the account balance cannot cover ${what}: ${amounts}`, { scope: 'balance', userId: scope.id, ...meta }, headers);
  }
  return new AppError('BUDGET_EXCEEDED', `the ${scope.kind} budget cannot cover ${what}: ${amounts}`, {
    scope: scope.kind, ...(scope.kind === 'key' ? { keyId: scope.id } : { memberId: scope.id }), ...meta,
  }, headers);
}
