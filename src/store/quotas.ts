import { and, eq, gte, sql, type SQL } from 'drizzle-orm';
import type { DbOrTx } from './db.ts';
import { ledgerEntries, quotaDefinitions, quotaOverrides } from './schema.ts';
import { escapeLike } from './bills.ts';

export type QuotaDefRow = typeof quotaDefinitions.$inferSelect;

export async function upsertQuotaDefinition(db: DbOrTx, row: QuotaDefRow): Promise<void> {
  const { model: _m, quotaType: _q, ...rest } = row;
  await db.insert(quotaDefinitions).values(row).onConflictDoUpdate({ target: [quotaDefinitions.model, quotaDefinitions.quotaType], set: rest });
}

export interface QuotaFilter {
  modal?: string | undefined;
  quotaType?: string | undefined;
  productType?: string | undefined;
  quotaObject?: string | undefined;
}

export async function listQuotaDefinitions(db: DbOrTx, f: QuotaFilter = {}): Promise<QuotaDefRow[]> {
  const conds: SQL[] = [];
  if (f.modal) conds.push(eq(quotaDefinitions.modal, f.modal));
  if (f.quotaType) conds.push(eq(quotaDefinitions.quotaType, f.quotaType));
  if (f.productType) conds.push(eq(quotaDefinitions.productType, f.productType));
  if (f.quotaObject) conds.push(sql`${quotaDefinitions.model} ilike ${'%' + escapeLike(f.quotaObject) + '%'}`);
  return db.select().from(quotaDefinitions).where(conds.length ? and(...conds) : undefined)
    .orderBy(quotaDefinitions.model, quotaDefinitions.quotaType);
}

export async function findQuotaDefinition(db: DbOrTx, model: string, quotaType: string): Promise<QuotaDefRow | undefined> {
  const [row] = await db.select().from(quotaDefinitions).where(and(eq(quotaDefinitions.model, model), eq(quotaDefinitions.quotaType, quotaType)));
  return row;
}

export async function upsertOverride(db: DbOrTx, teamId: string, model: string, quotaType: string, currentQuota: bigint): Promise<void> {
  await db.insert(quotaOverrides).values({ teamId, model, quotaType, currentQuota })
    .onConflictDoUpdate({ target: [quotaOverrides.teamId, quotaOverrides.model, quotaOverrides.quotaType], set: { currentQuota } });
}
export async function deleteOverride(db: DbOrTx, teamId: string, model: string, quotaType: string): Promise<void> {
  await db.delete(quotaOverrides).where(and(eq(quotaOverrides.teamId, teamId), eq(quotaOverrides.model, model), eq(quotaOverrides.quotaType, quotaType)));
}
export async function listOverrides(db: DbOrTx, teamId: string) {
  return db.select().from(quotaOverrides).where(eq(quotaOverrides.teamId, teamId));
}

/** Top-ups per UTC calendar month since `since`, in micro-units. */
export async function monthlyTopups(db: DbOrTx, teamId: string, since: Date): Promise<bigint[]> {
  const rows = await db
    .select({ total: sql<string>`sum(${ledgerEntries.amountMicro})::text` })
    .from(ledgerEntries)
    .where(and(eq(ledgerEntries.teamId, teamId), eq(ledgerEntries.kind, 'topup'), gte(ledgerEntries.createdAt, since)))
    .groupBy(sql`date_trunc('month', ${ledgerEntries.createdAt} at time zone 'UTC')`);
  return rows.map((r) => BigInt(r.total));
}
