// Queries of the media model catalogue and media tasks (schema-media.ts). Catalogue pages are
// keyset on id; a tenant sees the public records and its team's own.
import { and, asc, desc, eq, gt, inArray, isNotNull, isNull, like, lt, or, sql } from 'drizzle-orm';
import type { DbOrTx } from './db.ts';
import { mediaModels, mediaTasks } from './schema-media.ts';

export type MediaModelRow = typeof mediaModels.$inferSelect;
export type NewMediaModelRow = typeof mediaModels.$inferInsert;
export type MediaTaskRow = typeof mediaTasks.$inferSelect;
export type NewMediaTaskRow = typeof mediaTasks.$inferInsert;

export interface CatalogueFilter {
  teamId: string;
  visibility?: 'public' | 'private' | undefined;
  sources?: string[] | undefined;
  types?: string[] | undefined;
  isSdxl?: boolean | undefined;
  /** lower-case text searched in sd_name, name and tags */
  query?: string | undefined;
  inpainting?: boolean | undefined;
  afterId: number;
  limit: number;
}

/** `%` and `_` (and the escape itself) taken literally in a LIKE pattern. */
function likeLiteral(s: string): string {
  return s.replace(/[\\%_]/g, (c) => `\\${c}`);
}

export async function listMediaModels(db: DbOrTx, f: CatalogueFilter): Promise<MediaModelRow[]> {
  const m = mediaModels;
  const visible = f.visibility === 'public' ? isNull(m.teamId)
    : f.visibility === 'private' ? eq(m.teamId, f.teamId)
    : or(isNull(m.teamId), eq(m.teamId, f.teamId));
  return db.select().from(m).where(and(
    visible,
    gt(m.id, f.afterId),
    f.sources?.length ? inArray(m.source, f.sources) : undefined,
    f.types?.length ? inArray(m.type, f.types) : undefined,
    f.isSdxl !== undefined ? eq(m.isSdxl, f.isSdxl) : undefined,
    f.query ? like(m.search, `%${likeLiteral(f.query)}%`) : undefined,
    f.inpainting ? and(eq(m.type, 'checkpoint'), eq(m.baseModelType, 'Inpainting')) : undefined,
  )).orderBy(asc(m.id)).limit(f.limit);
}

/** An operator's page of public records (keyset on id), filtered like a tenant's. */
export async function listPublicMediaModels(db: DbOrTx, f: Omit<CatalogueFilter, 'teamId' | 'visibility'>): Promise<MediaModelRow[]> {
  return listMediaModels(db, { ...f, teamId: '', visibility: 'public' });
}

/**
 * Team uploads still unavailable (status 0) created before `beforeMs`: the process that
 * received them died mid-stream (an upload that fails otherwise removes its own record).
 */
export async function strandedUploads(db: DbOrTx, beforeMs: number, limit: number): Promise<MediaModelRow[]> {
  const m = mediaModels;
  return db.select().from(m).where(and(eq(m.status, 0), isNotNull(m.teamId), lt(m.createdAtMs, beforeMs)))
    .orderBy(asc(m.createdAtMs)).limit(limit);
}

/** Delete a record only while it is still unavailable (an upload that finished meanwhile is kept). */
export async function deleteUnavailableModel(db: DbOrTx, id: number): Promise<MediaModelRow | undefined> {
  const [r] = await db.delete(mediaModels).where(and(eq(mediaModels.id, id), eq(mediaModels.status, 0))).returning();
  return r;
}

export async function insertMediaModel(db: DbOrTx, row: NewMediaModelRow): Promise<MediaModelRow> {
  const [r] = await insertMediaModels(db, [row]);
  return r!;
}

/** Several records in one statement: all or none. */
export async function insertMediaModels(db: DbOrTx, rows: NewMediaModelRow[]): Promise<MediaModelRow[]> {
  return db.insert(mediaModels).values(rows).returning();
}

/** Public records by the names tasks use (those that exist). */
export async function findPublicModelsByNames(db: DbOrTx, sdNamesInApi: string[]): Promise<MediaModelRow[]> {
  return db.select().from(mediaModels).where(and(isNull(mediaModels.teamId), inArray(mediaModels.sdNameInApi, sdNamesInApi)));
}

/** The records a team may use under a name: its own first, then the public one. */
export async function findVisibleModelsByName(db: DbOrTx, teamId: string, names: string[]): Promise<MediaModelRow[]> {
  if (names.length === 0) return [];
  return db.select().from(mediaModels).where(and(
    inArray(mediaModels.sdNameInApi, names),
    or(isNull(mediaModels.teamId), eq(mediaModels.teamId, teamId)),
  ));
}

export async function findMediaModel(db: DbOrTx, id: number): Promise<MediaModelRow | undefined> {
  const [r] = await db.select().from(mediaModels).where(eq(mediaModels.id, id));
  return r;
}

export async function updateMediaModel(db: DbOrTx, id: number, set: Partial<NewMediaModelRow>): Promise<MediaModelRow | undefined> {
  const [r] = await db.update(mediaModels).set(set).where(eq(mediaModels.id, id)).returning();
  return r;
}

export async function deleteMediaModel(db: DbOrTx, id: number): Promise<MediaModelRow | undefined> {
  const [r] = await db.delete(mediaModels).where(eq(mediaModels.id, id)).returning();
  return r;
}

// ---- tasks ----

export async function insertMediaTask(db: DbOrTx, row: NewMediaTaskRow): Promise<void> {
  await db.insert(mediaTasks).values(row);
}

export async function findMediaTask(db: DbOrTx, id: string): Promise<MediaTaskRow | undefined> {
  const [r] = await db.select().from(mediaTasks).where(eq(mediaTasks.id, id));
  return r;
}

/** Take a task's row lock (its end is decided once). */
export async function lockMediaTask(db: DbOrTx, id: string): Promise<MediaTaskRow | undefined> {
  const [r] = await db.select().from(mediaTasks).where(eq(mediaTasks.id, id)).for('update');
  return r;
}

/** Move a task that has not ended (queued → processing, progress); false when it has ended. */
export async function updateOpenTask(db: DbOrTx, id: string, set: Partial<NewMediaTaskRow>): Promise<boolean> {
  const r = await db.update(mediaTasks).set(set).where(and(eq(mediaTasks.id, id), isNull(mediaTasks.endedAtMs))).returning({ id: mediaTasks.id });
  return r.length > 0;
}

/** Whether `err` is a unique index on a record's name refusing a row (two records of one name). */
export function isModelNameTaken(err: unknown): boolean {
  for (let e = err, depth = 0; e && typeof e === 'object' && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const x = e as { code?: unknown; constraint?: unknown; message?: unknown };
    if (x.code === '23505') return true;
  }
  return false;
}

/**
 * Tasks not ended whose job (of type `jobName`, keyed by the task id) is neither queued nor
 * running: the runner failed it without its handler ending the task (its last start's lease
 * ran out: the process died each time).
 */
export async function strandedTasks(db: DbOrTx, jobName: string, limit: number): Promise<{ id: string; lastError: string | null }[]> {
  const r = await db.execute(sql`
    select t.id, (select j.last_error from jobs j where j.name = ${jobName} and j.singleton_key = t.id order by j.created_at_ms desc limit 1) as last_error
    from media_tasks t
    where t.ended_at_ms is null
      and not exists (select 1 from jobs j where j.name = ${jobName} and j.singleton_key = t.id and j.state in ('queued', 'running'))
    order by t.created_at_ms limit ${limit}`);
  return (r as unknown as { rows: { id: string; last_error: string | null }[] }).rows.map((x) => ({ id: x.id, lastError: x.last_error }));
}

/** Tasks that ended before `beforeMs`, oldest first (their outputs and rows are removed). */
export async function endedTasksBefore(db: DbOrTx, beforeMs: number, limit: number): Promise<MediaTaskRow[]> {
  return db.select().from(mediaTasks).where(lt(mediaTasks.endedAtMs, beforeMs)).orderBy(asc(mediaTasks.endedAtMs)).limit(limit);
}

export interface TeamTaskFilter {
  teamId: string;
  /** the page starts after this task id (ids are time-sortable: newest first is id descending) */
  beforeId?: string | undefined;
  status?: string | undefined;
  limit: number;
}

/** A team's tasks, newest first, keyset on the id (index media_tasks_team_id). */
export async function listTeamTasks(db: DbOrTx, f: TeamTaskFilter): Promise<MediaTaskRow[]> {
  const t = mediaTasks;
  return db.select().from(t).where(and(
    eq(t.teamId, f.teamId),
    f.beforeId !== undefined ? lt(t.id, f.beforeId) : undefined,
    f.status !== undefined ? eq(t.status, f.status) : undefined,
  )).orderBy(desc(t.id)).limit(f.limit);
}

export async function deleteMediaTask(db: DbOrTx, id: string): Promise<void> {
  await db.delete(mediaTasks).where(eq(mediaTasks.id, id));
}
