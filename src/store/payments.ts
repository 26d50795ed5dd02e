// Queries of card top-ups (schema-payments.ts).
import { desc, eq } from 'drizzle-orm';
import type { DbOrTx } from './db.ts';
import { cardTopups, stripeEvents } from './schema-payments.ts';

export type TopupRow = typeof cardTopups.$inferSelect;

export async function insertTopup(db: DbOrTx, row: typeof cardTopups.$inferInsert): Promise<void> {
  await db.insert(cardTopups).values(row);
}

export async function findTopup(db: DbOrTx, id: string): Promise<TopupRow | undefined> {
  const [row] = await db.select().from(cardTopups).where(eq(cardTopups.id, id));
  return row;
}

export async function updateTopup(db: DbOrTx, id: string, set: Partial<typeof cardTopups.$inferInsert>): Promise<void> {
  await db.update(cardTopups).set(set).where(eq(cardTopups.id, id));
}

export async function listTopupsOfTeam(db: DbOrTx, teamId: string, limit: number): Promise<TopupRow[]> {
  return db.select().from(cardTopups).where(eq(cardTopups.teamId, teamId)).orderBy(desc(cardTopups.createdAtMs), desc(cardTopups.id)).limit(limit);
}

export async function eventSeen(db: DbOrTx, id: string): Promise<boolean> {
  const rows = await db.select({ id: stripeEvents.id }).from(stripeEvents).where(eq(stripeEvents.id, id));
  return rows.length > 0;
}

/** Records an event acted on; false when it was recorded already (by a concurrent delivery, which then waited for this one's commit). */
export async function recordEvent(db: DbOrTx, row: typeof stripeEvents.$inferInsert): Promise<boolean> {
  const inserted = await db.insert(stripeEvents).values(row).onConflictDoNothing({ target: stripeEvents.id }).returning({ id: stripeEvents.id });
  return inserted.length > 0;
}
