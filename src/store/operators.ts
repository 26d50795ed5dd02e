// Operator grants (schema-operators.ts, domain/accounts/operators.ts).
import { and, asc, eq, sql } from 'drizzle-orm';
import type { DbOrTx } from './db.ts';
import { persons } from './schema.ts';
import { operatorGrants } from './schema-operators.ts';

export type OperatorGrantRow = typeof operatorGrants.$inferSelect;

export async function insertGrant(db: DbOrTx, row: OperatorGrantRow): Promise<void> {
  await db.insert(operatorGrants).values(row);
}
export async function updateGrant(db: DbOrTx, id: string, patch: Partial<OperatorGrantRow>): Promise<void> {
  await db.update(operatorGrants).set(patch).where(eq(operatorGrants.id, id));
}
export async function lockGrant(db: DbOrTx, id: string): Promise<OperatorGrantRow | undefined> {
  const [row] = await db.select().from(operatorGrants).where(eq(operatorGrants.id, id)).for('update');
  return row;
}
/** The invitation waiting for an address (at most one: a unique index). */
export async function lockInvitedGrant(db: DbOrTx, email: string): Promise<OperatorGrantRow | undefined> {
  const [row] = await db.select().from(operatorGrants).where(and(eq(operatorGrants.email, email), eq(operatorGrants.status, 'invited'))).for('update');
  return row;
}

/** The person's active grant with what opens the operator views (two-factor on), read at every call. */
export async function findActiveGrant(db: DbOrTx, personId: string) {
  const [row] = await db.select({ grantId: operatorGrants.id, email: persons.email, twoFactor: sql<boolean>`${persons.totpEnabledAtMs} is not null` })
    .from(operatorGrants).innerJoin(persons, eq(persons.id, operatorGrants.personId))
    .where(and(eq(operatorGrants.personId, personId), eq(operatorGrants.status, 'active')));
  return row;
}

/** Invited and active grants, oldest first, with the holder's current address and two-factor state. */
export async function listLiveGrants(db: DbOrTx) {
  return db.select({ grant: operatorGrants, personEmail: persons.email, twoFactor: sql<boolean>`${persons.totpEnabledAtMs} is not null` })
    .from(operatorGrants).leftJoin(persons, eq(persons.id, operatorGrants.personId))
    .where(sql`${operatorGrants.status} <> 'revoked'`).orderBy(asc(operatorGrants.createdAtMs), asc(operatorGrants.id));
}
