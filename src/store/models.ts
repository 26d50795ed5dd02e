import { asc, eq } from 'drizzle-orm';
import type { DbOrTx } from './db.ts';
import { llmModels, llmModelUpstreamHealth } from './schema.ts';

export type ModelRow = typeof llmModels.$inferSelect;
/** What an upsert writes: everything but the upstream key, which has operations of its own. */
export type ModelWrite = Omit<typeof llmModels.$inferInsert, 'upstreamKeySealed' | 'upstreamKeySetAt'>;
export type UpstreamHealthRow = typeof llmModelUpstreamHealth.$inferSelect;

export async function upsertModel(db: DbOrTx, row: ModelWrite): Promise<void> {
  const { id: _id, createdAt: _c, ...rest } = row;
  await db.insert(llmModels).values(row).onConflictDoUpdate({ target: llmModels.id, set: rest });
}
export async function listModels(db: DbOrTx): Promise<ModelRow[]> {
  return db.select().from(llmModels).orderBy(asc(llmModels.id));
}
export async function findModel(db: DbOrTx, id: string): Promise<ModelRow | undefined> {
  const [row] = await db.select().from(llmModels).where(eq(llmModels.id, id));
  return row;
}

/** Sets (a sealed value) or clears (null) a model's upstream key; false when there is no such model. */
export async function setUpstreamKey(db: DbOrTx, id: string, sealed: string | null, at: Date | null): Promise<boolean> {
  const done = await db.update(llmModels).set({ upstreamKeySealed: sealed, upstreamKeySetAt: at }).where(eq(llmModels.id, id)).returning({ id: llmModels.id });
  return done.length > 0;
}

export async function listUpstreamHealth(db: DbOrTx): Promise<UpstreamHealthRow[]> {
  return db.select().from(llmModelUpstreamHealth);
}
export async function findUpstreamHealth(db: DbOrTx, modelId: string): Promise<UpstreamHealthRow | undefined> {
  const [row] = await db.select().from(llmModelUpstreamHealth).where(eq(llmModelUpstreamHealth.modelId, modelId));
  return row;
}
export async function saveUpstreamHealth(db: DbOrTx, row: UpstreamHealthRow): Promise<void> {
  const { modelId: _m, ...rest } = row;
  await db.insert(llmModelUpstreamHealth).values(row).onConflictDoUpdate({ target: llmModelUpstreamHealth.modelId, set: rest });
}
