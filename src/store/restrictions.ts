// Member-level restrictions (schema-restrictions.ts): the member's model policy and the
// budget its new keys start with.
import { eq } from 'drizzle-orm';
import type { DbOrTx } from './db.ts';
import { memberKeyBudgetDefaults, memberPolicies } from './schema-restrictions.ts';

export type MemberPolicyRow = typeof memberPolicies.$inferSelect;
export type KeyBudgetDefaultRow = typeof memberKeyBudgetDefaults.$inferSelect;

export async function findMemberPolicy(db: DbOrTx, memberId: string): Promise<MemberPolicyRow | undefined> {
  const [row] = await db.select().from(memberPolicies).where(eq(memberPolicies.memberId, memberId));
  return row;
}
export async function upsertMemberPolicy(db: DbOrTx, row: MemberPolicyRow): Promise<void> {
  await db.insert(memberPolicies).values(row).onConflictDoUpdate({
    target: memberPolicies.memberId,
    set: { policy: row.policy, updatedAtS: row.updatedAtS, updatedBy: row.updatedBy },
  });
}
export async function deleteMemberPolicy(db: DbOrTx, memberId: string): Promise<void> {
  await db.delete(memberPolicies).where(eq(memberPolicies.memberId, memberId));
}

export async function findKeyBudgetDefault(db: DbOrTx, memberId: string): Promise<KeyBudgetDefaultRow | undefined> {
  const [row] = await db.select().from(memberKeyBudgetDefaults).where(eq(memberKeyBudgetDefaults.memberId, memberId));
  return row;
}
export async function upsertKeyBudgetDefault(db: DbOrTx, row: KeyBudgetDefaultRow): Promise<void> {
  await db.insert(memberKeyBudgetDefaults).values(row).onConflictDoUpdate({
    target: memberKeyBudgetDefaults.memberId,
    set: { budgetType: row.budgetType, limitUnits: row.limitUnits, cycle: row.cycle, updatedAt: row.updatedAt, updatedBy: row.updatedBy },
  });
}
export async function deleteKeyBudgetDefault(db: DbOrTx, memberId: string): Promise<void> {
  await db.delete(memberKeyBudgetDefaults).where(eq(memberKeyBudgetDefaults.memberId, memberId));
}
