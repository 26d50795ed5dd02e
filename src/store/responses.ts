// Queries of stored responses (schema-responses.ts): every read is scoped by team and hides
// expired rows, so one that waits for the prune job is already gone for tenants.
import { and, eq, gt, inArray, lte } from 'drizzle-orm';
import type { DbOrTx } from './db.ts';
import { responses } from './schema-responses.ts';

export type ResponseRow = typeof responses.$inferSelect;
export type NewResponseRow = typeof responses.$inferInsert;

export async function insertResponse(db: DbOrTx, row: NewResponseRow): Promise<void> {
  await db.insert(responses).values(row);
}

export async function findResponse(db: DbOrTx, teamId: string, id: string, nowMs: number): Promise<ResponseRow | undefined> {
  const [row] = await db.select().from(responses)
    .where(and(eq(responses.id, id), eq(responses.teamId, teamId), gt(responses.expiresAtMs, nowMs)));
  return row;
}

/** True when a visible row was removed. */
export async function deleteResponse(db: DbOrTx, teamId: string, id: string, nowMs: number): Promise<boolean> {
  const r = await db.delete(responses)
    .where(and(eq(responses.id, id), eq(responses.teamId, teamId), gt(responses.expiresAtMs, nowMs))).returning({ id: responses.id });
  return r.length > 0;
}

/** Remove up to `limit` expired rows; how many were removed. */
export async function deleteExpiredResponses(db: DbOrTx, nowMs: number, limit: number): Promise<number> {
  const due = db.select({ id: responses.id }).from(responses).where(lte(responses.expiresAtMs, nowMs)).limit(limit);
  const r = await db.delete(responses).where(inArray(responses.id, due)).returning({ id: responses.id });
  return r.length;
}
