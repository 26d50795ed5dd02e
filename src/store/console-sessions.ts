import { eq, lt } from 'drizzle-orm';
import type { DbOrTx } from './db.ts';
import { consoleSessions } from './schema-console.ts';

export type ConsoleSessionRow = typeof consoleSessions.$inferSelect;

export async function insertSession(db: DbOrTx, row: ConsoleSessionRow): Promise<void> {
  await db.insert(consoleSessions).values(row);
}

export async function findSession(db: DbOrTx, id: string): Promise<ConsoleSessionRow | undefined> {
  const [row] = await db.select().from(consoleSessions).where(eq(consoleSessions.id, id));
  return row;
}

export async function deleteSession(db: DbOrTx, id: string): Promise<boolean> {
  const rows = await db.delete(consoleSessions).where(eq(consoleSessions.id, id)).returning({ id: consoleSessions.id });
  return rows.length === 1;
}

/** Removes sessions past their expiry (done at each sign-in: the table stays the size of the live ones). */
export async function deleteExpiredSessions(db: DbOrTx, nowMs: number): Promise<void> {
  await db.delete(consoleSessions).where(lt(consoleSessions.expiresAtMs, nowMs));
}
