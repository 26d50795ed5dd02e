// Budgets and the spend they are measured against.
import { and, eq, sql } from 'drizzle-orm';
import type { DbOrTx } from './db.ts';
import { budgets } from './schema.ts';

export type BudgetRow = typeof budgets.$inferSelect;
export type BudgetScope = 'member' | 'key';

export async function findBudget(db: DbOrTx, scope: BudgetScope, subjectId: string): Promise<BudgetRow | undefined> {
  const [row] = await db.select().from(budgets).where(and(eq(budgets.scope, scope), eq(budgets.subjectId, subjectId)));
  return row;
}

export async function upsertBudget(db: DbOrTx, row: typeof budgets.$inferInsert): Promise<void> {
  await db.insert(budgets).values(row).onConflictDoUpdate({
    target: [budgets.scope, budgets.subjectId],
    set: { budgetType: row.budgetType, limitUnits: row.limitUnits, cycle: row.cycle ?? null, setAt: row.setAt },
  });
}

export async function deleteBudget(db: DbOrTx, scope: BudgetScope, subjectId: string): Promise<void> {
  await db.delete(budgets).where(and(eq(budgets.scope, scope), eq(budgets.subjectId, subjectId)));
}

export interface BudgetWithSpend extends BudgetRow {
  spentMicro: bigint;
}

/**
 * Every budget of a team in `scope` with the charges attributed to its subject in its
 * current period: since the calendar month began for Recurring, since it was set otherwise.
 * One query, whatever the number of budgets.
 */
export async function budgetsWithSpend(db: DbOrTx, teamId: string, scope: BudgetScope, monthStart: Date, subjectId?: string): Promise<BudgetWithSpend[]> {
  const subjectCol = scope === 'member' ? sql.raw('l.member_id') : sql.raw('l.key_id');
  const monthIso = monthStart.toISOString();
  const res = await db.execute(sql`
    select b.scope, b.subject_id, b.team_id, b.budget_type, b.limit_units::text as limit_units, b.cycle, b.set_at,
           coalesce(sum(l.amount_micro), 0)::text as spent_micro
      from budgets b
      left join ledger_entries l
        on ${subjectCol} = b.subject_id and l.team_id = b.team_id and l.kind = 'charge'
       and l.created_at >= case when b.budget_type = 'Recurring' then ${monthIso}::timestamptz else b.set_at end
     where b.team_id = ${teamId} and b.scope = ${scope}
       ${subjectId ? sql`and b.subject_id = ${subjectId}` : sql``}
     group by b.scope, b.subject_id, b.team_id, b.budget_type, b.limit_units, b.cycle, b.set_at`);
  const rows = (res as unknown as { rows: Record<string, unknown>[] }).rows;
  return rows.map((r) => ({
    scope: String(r.scope),
    subjectId: String(r.subject_id),
    teamId: String(r.team_id),
    budgetType: String(r.budget_type),
    limitUnits: BigInt(String(r.limit_units)),
    cycle: r.cycle === null ? null : String(r.cycle),
    setAt: new Date(r.set_at as string | Date),
    spentMicro: BigInt(String(r.spent_micro)),
  }));
}
