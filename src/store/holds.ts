// Holds: money set aside by admitted work until its charges come in (schema-spend.ts).
import { eq, sql } from 'drizzle-orm';
import type { DbOrTx } from './db.ts';
import { teams } from './schema.ts';
import { spendHolds } from './schema-spend.ts';

export type HoldRow = typeof spendHolds.$inferSelect;

export async function lockHold(db: DbOrTx, ownerId: string): Promise<HoldRow | undefined> {
  const [row] = await db.select().from(spendHolds).where(eq(spendHolds.ownerId, ownerId)).for('update');
  return row;
}

export async function upsertHold(db: DbOrTx, row: typeof spendHolds.$inferInsert): Promise<void> {
  await db.insert(spendHolds).values(row).onConflictDoUpdate({
    target: spendHolds.ownerId,
    set: { amountMicro: row.amountMicro, updatedAt: row.updatedAt, memberId: row.memberId ?? null, keyId: row.keyId ?? null },
  });
}

export async function deleteHold(db: DbOrTx, ownerId: string): Promise<void> {
  await db.delete(spendHolds).where(eq(spendHolds.ownerId, ownerId));
}

/** The team's pending column is the sum of its holds: moved by the same amount in the same transaction. */
export async function addTeamPending(db: DbOrTx, teamId: string, deltaMicro: bigint): Promise<void> {
  await db.update(teams).set({ pendingMicro: sql`${teams.pendingMicro} + ${deltaMicro.toString()}::bigint` }).where(eq(teams.id, teamId));
}

/** What a member's or a key's holds add up to. */
export async function sumHolds(db: DbOrTx, by: 'member' | 'key', subjectId: string): Promise<bigint> {
  const col = by === 'member' ? spendHolds.memberId : spendHolds.keyId;
  const [row] = await db.select({ sum: sql<string>`coalesce(sum(${spendHolds.amountMicro}), 0)::text` }).from(spendHolds).where(eq(col, subjectId));
  return BigInt(row?.sum ?? '0');
}

export async function findHold(db: DbOrTx, ownerId: string): Promise<HoldRow | undefined> {
  const [row] = await db.select().from(spendHolds).where(eq(spendHolds.ownerId, ownerId));
  return row;
}
