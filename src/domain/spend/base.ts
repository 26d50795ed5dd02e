// What a scope may still spend according to the store: the base the shared counters start
// from (domain/spend/counters.ts), read again whenever their state is missing or stale.
import type { DbOrTx } from '../../store/db.ts';
import { monthPeriod } from '../../lib/clock.ts';
import { unitsToMicro } from '../../lib/money.ts';
import { findTeam } from '../../store/accounts.ts';
import { budgetsWithSpend } from '../../store/budgets.ts';
import { sumHolds } from '../../store/holds.ts';
import { spendableMicro } from '../billing/balance.ts';
import type { BudgetScope } from './scopes.ts';

/** No budget: a base so large it never refuses (Lua compares doubles; 2^52 stays exact). */
export const UNLIMITED_BASE_MICRO = 2n ** 52n;

/**
 * The team: its spendable balance (holds are its pending charges) without live
 * reservations. A member or key: the budget limit minus the period's charges and its holds.
 */
export async function scopeBaseMicro(db: DbOrTx, teamId: string, scope: BudgetScope, nowMs: number): Promise<bigint> {
  if (scope.kind === 'team') {
    const team = await findTeam(db, scope.id);
    return team ? spendableMicro(team, 0n) : 0n;
  }
  const month = new Date(monthPeriod(nowMs).startMs);
  const [row] = await budgetsWithSpend(db, teamId, scope.kind, month, scope.id);
  if (!row) return UNLIMITED_BASE_MICRO;
  return unitsToMicro(row.limitUnits) - row.spentMicro - await sumHolds(db, scope.kind, scope.id);
}

