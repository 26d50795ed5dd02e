// Ledger entries and fixed-term bills. Rows are only ever inserted.
import { and, eq } from 'drizzle-orm';
import type { DbOrTx } from './db.ts';
import { fixedTermBills, ledgerEntries } from './schema.ts';

export type LedgerRow = typeof ledgerEntries.$inferSelect;
export type LedgerInsert = typeof ledgerEntries.$inferInsert;
export type FixedTermBillInsert = typeof fixedTermBills.$inferInsert;

export async function findByIdempotencyKey(db: DbOrTx, teamId: string, key: string): Promise<LedgerRow | undefined> {
  const [row] = await db.select().from(ledgerEntries)
    .where(and(eq(ledgerEntries.teamId, teamId), eq(ledgerEntries.idempotencyKey, key)));
  return row;
}

export async function insertLedgerEntries(db: DbOrTx, rows: LedgerInsert[]): Promise<void> {
  if (rows.length) await db.insert(ledgerEntries).values(rows);
}

export async function insertFixedTermBill(db: DbOrTx, row: FixedTermBillInsert): Promise<void> {
  await db.insert(fixedTermBills).values(row);
}
