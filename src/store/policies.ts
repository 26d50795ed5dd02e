import { eq } from 'drizzle-orm';
import type { DbOrTx } from './db.ts';
import { keyPolicies } from './schema.ts';

export type PolicyRow = typeof keyPolicies.$inferSelect;

export async function findPolicy(db: DbOrTx, keyId: string): Promise<PolicyRow | undefined> {
  const [row] = await db.select().from(keyPolicies).where(eq(keyPolicies.keyId, keyId));
  return row;
}
export async function upsertPolicy(db: DbOrTx, row: PolicyRow): Promise<void> {
  await db.insert(keyPolicies).values(row).onConflictDoUpdate({
    target: keyPolicies.keyId,
    set: { policy: row.policy, updatedAtS: row.updatedAtS, updatedBy: row.updatedBy },
  });
}
export async function deletePolicy(db: DbOrTx, keyId: string): Promise<void> {
  await db.delete(keyPolicies).where(eq(keyPolicies.keyId, keyId));
}
