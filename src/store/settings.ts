import { eq, sql } from 'drizzle-orm';
import type { DbOrTx } from './db.ts';
import { settings } from './schema.ts';

export async function getSetting<T>(db: DbOrTx, key: string): Promise<T | undefined> {
  const [row] = await db.select().from(settings).where(eq(settings.key, key));
  return row?.value as T | undefined;
}

/** Insert once; returns false when the key already existed (another replica got there first). */
export async function claimSetting(db: DbOrTx, key: string, value: unknown): Promise<boolean> {
  const rows = await db.insert(settings).values({ key, value: sql`${JSON.stringify(value)}::jsonb` })
    .onConflictDoNothing().returning({ key: settings.key });
  return rows.length === 1;
}

/** Overwrite an existing key; returns false when there was none (nothing is inserted). */
export async function replaceSetting(db: DbOrTx, key: string, value: unknown): Promise<boolean> {
  const rows = await db.update(settings).set({ value: sql`${JSON.stringify(value)}::jsonb` })
    .where(eq(settings.key, key)).returning({ key: settings.key });
  return rows.length === 1;
}
