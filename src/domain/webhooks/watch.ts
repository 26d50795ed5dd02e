// budget.threshold and balance.low: announced by a recurring pass (job webhooks.watch, every
// GANTRY_WEBHOOK_WATCH_INTERVAL_MS), never on the request path. The pass reads only teams
// with an enabled endpoint subscribed to one of them; each crossing is announced once (a
// mark in webhook_marks, written in the transaction that queues the deliveries):
// - budget.threshold: a member or key budget whose spend in its period reached 80 % or 100 %
//   of its limit; a new period (Recurring), a budget set again (One-time) or another limit
//   is another crossing;
// - balance.low: the team's spendable balance (vouchers + cash + unused credit − outstanding
//   − pending; live reservations not counted) below GANTRY_WEBHOOK_BALANCE_LOW_UNITS; once it
//   is back above, the next fall is announced again.
import { monthPeriod } from '../../lib/clock.ts';
import { microToUnits, microToUnitString, unitsToMicro } from '../../lib/money.ts';
import { findTeam } from '../../store/accounts.ts';
import { budgetsWithSpend, type BudgetWithSpend } from '../../store/budgets.ts';
import * as q from '../../store/webhooks.ts';
import { spendableMicro } from '../billing/balance.ts';
import { inTransaction } from '../changes.ts';
import { enqueueWebhook } from './enqueue.ts';
import type { Webhooks } from './service.ts';

export const BUDGET_THRESHOLDS = [80, 100] as const;
const BALANCE_LOW = 'balance.low';
/** Budget marks are kept this long (their period is over by then); balance marks until the balance recovers. */
const KEEP_MARKS_MS = 400 * 86_400_000;

function budgetPayload(b: BudgetWithSpend, percent: number, nowMs: number) {
  const used = microToUnits(b.spentMicro);
  const period = b.budgetType === 'Recurring' ? monthPeriod(nowMs) : undefined;
  return {
    scope: b.scope, ...(b.scope === 'member' ? { member_id: b.subjectId } : { key_id: b.subjectId }),
    threshold_percent: percent, budget_type: b.budgetType,
    budget_limit: Number(b.limitUnits), used: Number(used), remaining: Number(b.limitUnits - used),
    ...(period ? { period_start: new Date(period.startMs).toISOString(), period_end: new Date(period.endMs).toISOString() } : {}),
  };
}

async function watchBudgets(w: Webhooks, teamId: string): Promise<number> {
  const now = w.ctx.clock.nowMs();
  const month = monthPeriod(now);
  const monthKey = new Date(month.startMs).toISOString().slice(0, 7);
  let sent = 0;
  for (const scope of ['member', 'key'] as const) {
    for (const b of await budgetsWithSpend(w.ctx.db, teamId, scope, new Date(month.startMs))) {
      const limitMicro = unitsToMicro(b.limitUnits);
      const period = b.budgetType === 'Recurring' ? monthKey : `set-${b.setAt.getTime()}`;
      for (const percent of BUDGET_THRESHOLDS) {
        if (b.spentMicro * 100n < limitMicro * BigInt(percent)) continue;
        const mark = `budget:${scope}:${b.subjectId}:${b.limitUnits}:${period}:${percent}`;
        await inTransaction(w.ctx, async (tx) => {
          if (!(await q.addMark(tx, teamId, mark, now))) return;
          await enqueueWebhook(w.ctx, { teamId, event: 'budget.threshold', payload: budgetPayload(b, percent, now) }, { tx });
          sent++;
        });
      }
    }
  }
  return sent;
}

async function watchBalance(w: Webhooks, teamId: string): Promise<number> {
  const team = await findTeam(w.ctx.db, teamId);
  if (!team) return 0;
  const threshold = unitsToMicro(w.settings.balanceLowUnits);
  const spendable = spendableMicro(team, 0n);
  if (spendable >= threshold) {
    await q.removeMark(w.ctx.db, teamId, BALANCE_LOW);
    return 0;
  }
  const now = w.ctx.clock.nowMs();
  return inTransaction(w.ctx, async (tx) => {
    if (!(await q.addMark(tx, teamId, BALANCE_LOW, now))) return 0;
    await enqueueWebhook(w.ctx, {
      teamId, event: 'balance.low',
      payload: { available_balance: microToUnitString(spendable), threshold: microToUnitString(threshold) },
    }, { tx });
    return 1;
  });
}

/** One pass; resolves to how many events it queued. */
export async function watchThresholds(w: Webhooks, signal: AbortSignal): Promise<number> {
  let sent = 0;
  for (const [teamId, events] of await q.teamsSubscribedTo(w.ctx.db, ['budget.threshold', BALANCE_LOW])) {
    if (signal.aborted) break;
    if (events.has('budget.threshold')) sent += await watchBudgets(w, teamId);
    if (events.has(BALANCE_LOW)) sent += await watchBalance(w, teamId);
  }
  await q.pruneMarks(w.ctx.db, w.ctx.clock.nowMs() - KEEP_MARKS_MS, 500);
  return sent;
}
