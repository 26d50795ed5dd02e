import { asc, eq } from 'drizzle-orm';
import type { DbOrTx } from './db.ts';
import { llmModels } from './schema.ts';

export type ModelRow = typeof llmModels.$inferSelect;

export async function upsertModel(db: DbOrTx, row: typeof llmModels.$inferInsert): Promise<void> {
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
