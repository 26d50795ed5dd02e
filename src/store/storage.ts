// Queries of per-team storage (schema-storage.ts): the operator's quota overrides, the team's
// upload lock, and what a team stores. A file counts while it is being uploaded (its
// reservation) or ready and not expired; a file being deleted no longer counts. Every media
// record of a team counts (an upload in progress by its reservation).
import { and, eq, or, gt, sql } from 'drizzle-orm';
import type { DbOrTx } from './db.ts';
import { storageQuotas } from './schema-storage.ts';
import { files } from './schema-files.ts';
import { mediaModels } from './schema-media.ts';

export type StorageQuotaRow = typeof storageQuotas.$inferSelect;
export type StorageQuotaOverrides = Partial<Pick<StorageQuotaRow, 'filesMaxBytes' | 'filesMaxCount' | 'mediaMaxBytes' | 'mediaMaxCount'>>;

export interface StorageUsage {
  bytes: number;
  count: number;
}

export async function findStorageQuota(db: DbOrTx, teamId: string): Promise<StorageQuotaRow | undefined> {
  const [row] = await db.select().from(storageQuotas).where(eq(storageQuotas.teamId, teamId));
  return row;
}

export async function upsertStorageQuota(db: DbOrTx, teamId: string, set: StorageQuotaOverrides, nowMs: number): Promise<StorageQuotaRow> {
  const [row] = await db.insert(storageQuotas).values({ teamId, ...set, updatedAtMs: nowMs })
    .onConflictDoUpdate({ target: storageQuotas.teamId, set: { ...set, updatedAtMs: nowMs } }).returning();
  return row!;
}

/** Take the team's upload lock (its quota row, created on first use); held until the transaction ends. */
export async function lockStorage(tx: DbOrTx, teamId: string, nowMs: number): Promise<StorageQuotaRow> {
  await tx.insert(storageQuotas).values({ teamId, updatedAtMs: nowMs }).onConflictDoNothing();
  const [row] = await tx.select().from(storageQuotas).where(eq(storageQuotas.teamId, teamId)).for('update');
  return row!;
}

const totals = { bytes: sql<string>`coalesce(sum(bytes), 0)`, count: sql<string>`count(*)` };
const usage = (r: { bytes: string; count: string } | undefined): StorageUsage => ({ bytes: Number(r?.bytes ?? 0), count: Number(r?.count ?? 0) });

const readyFile = (nowMs: number) => and(eq(files.state, 'ready'), gt(files.expiresAtMs, nowMs));

/** The team's files: those stored, and (unless `storedOnly`) uploads in progress by their reservation. */
export async function filesUsage(db: DbOrTx, teamId: string, nowMs: number, storedOnly = false): Promise<StorageUsage> {
  const [r] = await db.select(totals).from(files).where(and(
    eq(files.teamId, teamId),
    storedOnly ? readyFile(nowMs) : or(eq(files.state, 'uploading'), readyFile(nowMs)),
  ));
  return usage(r);
}

/** The team's uploaded media models: those available, and (unless `storedOnly`) uploads in progress by their reservation. */
export async function mediaUsage(db: DbOrTx, teamId: string, storedOnly = false): Promise<StorageUsage> {
  const [r] = await db.select(totals).from(mediaModels).where(and(
    eq(mediaModels.teamId, teamId),
    storedOnly ? eq(mediaModels.status, 1) : undefined,
  ));
  return usage(r);
}
