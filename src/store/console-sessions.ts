import { and, desc, eq, gt, lt, sql } from 'drizzle-orm';
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

/** A person's console sessions, newest first. */
export async function listPersonSessions(db: DbOrTx, personId: string, nowMs: number) {
  return db.select().from(consoleSessions)
    .where(and(eq(consoleSessions.personId, personId), gt(consoleSessions.expiresAtMs, nowMs)))
    .orderBy(desc(consoleSessions.createdAtMs));
}
export interface EndedSession {
  ref: string | null;
  teamId: string | null;
}
const ended = { ref: consoleSessions.ref, teamId: consoleSessions.teamId };

/** Ends a person's sessions: all of them, or all but the one whose hash is `keepId`; the ones ended. */
export async function deletePersonSessions(db: DbOrTx, personId: string, keepId?: string): Promise<EndedSession[]> {
  return db.delete(consoleSessions).where(and(eq(consoleSessions.personId, personId), keepId ? sql`${consoleSessions.id} <> ${keepId}` : undefined)).returning(ended);
}
export async function deletePersonSessionByRef(db: DbOrTx, personId: string, ref: string): Promise<EndedSession | undefined> {
  const [row] = await db.delete(consoleSessions).where(and(eq(consoleSessions.personId, personId), eq(consoleSessions.ref, ref))).returning(ended);
  return row;
}
/** Deletes a session by its hash; the one ended, if there was one. */
export async function deleteSessionReturning(db: DbOrTx, id: string): Promise<EndedSession | undefined> {
  const [row] = await db.delete(consoleSessions).where(eq(consoleSessions.id, id)).returning(ended);
  return row;
}
