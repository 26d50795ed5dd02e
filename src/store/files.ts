// Queries of file records (schema-files.ts). Only `ready` rows that have not expired are
// visible to tenants; every read is scoped by team.
import { and, asc, desc, eq, gt, lt, lte } from 'drizzle-orm';
import type { DbOrTx } from './db.ts';
import { files } from './schema-files.ts';

export type FileRow = typeof files.$inferSelect;
export type NewFileRow = typeof files.$inferInsert;

export async function insertFile(db: DbOrTx, row: NewFileRow): Promise<void> {
  await db.insert(files).values(row);
}

/** An upload finished: the row becomes visible. False when the row is gone (swept: the upload outlived its deadline). */
export async function markFileReady(db: DbOrTx, id: string, done: { bytes: number; sha256: string; totalRequests: number; expiresAtMs: number }): Promise<boolean> {
  const r = await db.update(files).set({ ...done, state: 'ready', sweepAtMs: done.expiresAtMs })
    .where(and(eq(files.id, id), eq(files.state, 'uploading'))).returning({ id: files.id });
  return r.length > 0;
}

const visible = (teamId: string, nowMs: number) => and(eq(files.teamId, teamId), eq(files.state, 'ready'), gt(files.expiresAtMs, nowMs));

export async function findFile(db: DbOrTx, teamId: string, id: string, nowMs: number): Promise<FileRow | undefined> {
  const [row] = await db.select().from(files).where(and(eq(files.id, id), visible(teamId, nowMs)));
  return row;
}

/** A page of the team's files by id (ids are time-sortable), after `afterId` in the order asked. */
export async function listFiles(db: DbOrTx, f: { teamId: string; nowMs: number; purpose?: string | undefined; afterId?: string | undefined; order: 'asc' | 'desc'; limit: number }): Promise<FileRow[]> {
  return db.select().from(files).where(and(
    visible(f.teamId, f.nowMs),
    f.purpose ? eq(files.purpose, f.purpose) : undefined,
    f.afterId ? (f.order === 'desc' ? lt(files.id, f.afterId) : gt(files.id, f.afterId)) : undefined,
  )).orderBy(f.order === 'desc' ? desc(files.id) : asc(files.id)).limit(f.limit);
}

/** Hide a file and hand it to the sweep (which removes the bytes, then the row). The row as it was, or undefined when not visible. */
export async function markFileDeleting(db: DbOrTx, teamId: string, id: string, nowMs: number): Promise<FileRow | undefined> {
  const [row] = await db.update(files).set({ state: 'deleting', sweepAtMs: nowMs })
    .where(and(eq(files.id, id), visible(teamId, nowMs))).returning();
  return row;
}

/** Any row, by id (a failed upload cleaning up after itself). */
export async function setFileDeleting(db: DbOrTx, id: string, nowMs: number): Promise<void> {
  await db.update(files).set({ state: 'deleting', sweepAtMs: nowMs }).where(eq(files.id, id));
}

/** Rows the sweep must act on now: expired, deleted, or uploads past their deadline. */
export async function dueFiles(db: DbOrTx, nowMs: number, limit: number): Promise<FileRow[]> {
  return db.select().from(files).where(lte(files.sweepAtMs, nowMs)).orderBy(asc(files.sweepAtMs)).limit(limit);
}

/**
 * Take a due row for removal: it becomes `deleting` (invisible, and an upload still writing
 * it can no longer be marked ready), unless it stopped being due meanwhile.
 */
export async function claimDueFile(db: DbOrTx, id: string, nowMs: number): Promise<FileRow | undefined> {
  const [row] = await db.update(files).set({ state: 'deleting' })
    .where(and(eq(files.id, id), lte(files.sweepAtMs, nowMs))).returning();
  return row;
}

/** Remove a `deleting` row once its bytes are gone. */
export async function deleteFileRow(db: DbOrTx, id: string): Promise<void> {
  await db.delete(files).where(and(eq(files.id, id), eq(files.state, 'deleting')));
}
