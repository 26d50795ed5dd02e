// Read models over the ledger: fixed-term bill rows and usage aggregated into buckets.
import { and, eq, gte, lt, lte, sql, type SQL } from 'drizzle-orm';
import type { DbOrTx } from './db.ts';
import { apiKeys, fixedTermBills, ledgerEntries } from './schema.ts';

export interface FixedTermFilter {
  teamId: string;
  category?: string | undefined;
  productName?: string | undefined;
  ownerId?: string | undefined;
  fromMs: number;
  toMs: number;
}

export async function listFixedTermBills(db: DbOrTx, f: FixedTermFilter) {
  const conds: SQL[] = [
    eq(fixedTermBills.teamId, f.teamId),
    gte(fixedTermBills.createdAt, new Date(f.fromMs)),
    lt(fixedTermBills.createdAt, new Date(f.toMs)),
  ];
  if (f.category) conds.push(eq(fixedTermBills.productCategory, f.category));
  if (f.productName) conds.push(sql`${fixedTermBills.productName} ilike ${'%' + escapeLike(f.productName) + '%'}`);
  if (f.ownerId) conds.push(eq(fixedTermBills.ownerId, f.ownerId));
  return db
    .select({
      bill: fixedTermBills,
      amountMicro: ledgerEntries.amountMicro,
      voucherMicro: ledgerEntries.voucherMicro,
    })
    .from(fixedTermBills)
    .innerJoin(ledgerEntries, eq(ledgerEntries.id, fixedTermBills.ledgerId))
    .where(and(...conds))
    .orderBy(fixedTermBills.createdAt, fixedTermBills.id);
}

export const BUCKETS = ['hour', 'day', 'week', 'month'] as const;
export type Bucket = (typeof BUCKETS)[number];

export interface UsageFilter {
  teamId: string;
  bucket: Bucket;
  fromMs: number;
  toMs: number;
  category?: string | undefined;
  productName?: string | undefined;
  ownerId?: string | undefined;
  byKey?: boolean;
}

export interface UsageRow {
  bucketStart: Date;
  billingMethod: number;
  productId: string;
  productName: string;
  category: string;
  ownerId: string;
  keyId: string | null;
  keyName: string | null;
  keyMask: string | null;
  amountMicro: bigint;
  voucherMicro: bigint;
  billNum0: string;
  billNum1: string;
  basePrice0: string;
  basePrice1: string;
}

export async function aggregateUsage(db: DbOrTx, f: UsageFilter): Promise<UsageRow[]> {
  const conds: SQL[] = [
    eq(ledgerEntries.teamId, f.teamId),
    eq(ledgerEntries.kind, 'charge'),
    gte(ledgerEntries.createdAt, new Date(f.fromMs)),
    lt(ledgerEntries.createdAt, new Date(f.toMs)),
  ];
  if (f.category) conds.push(eq(ledgerEntries.category, f.category));
  if (f.productName) conds.push(sql`${ledgerEntries.productName} ilike ${'%' + escapeLike(f.productName) + '%'}`);
  if (f.ownerId) conds.push(eq(ledgerEntries.ownerId, f.ownerId));
  if (f.byKey) conds.push(sql`${ledgerEntries.keyId} is not null`);
  const bucket = sql.raw(`'${f.bucket}'`); // from a closed set, never user text
  const bucketExpr = sql`(date_trunc(${bucket}, ${ledgerEntries.createdAt} at time zone 'UTC') at time zone 'UTC')`;
  const num = (k: string) => sql<string>`coalesce(sum((${ledgerEntries.detail}->>${k})::numeric), 0)::text`;
  const price = (k: string) => sql<string>`coalesce(max(${ledgerEntries.detail}->>${k}), '0')`;
  const rows = await db
    .select({
      bucketStart: sql<Date>`${bucketExpr}`.as('bucket_start'),
      billingMethod: ledgerEntries.billingMethod,
      productId: ledgerEntries.productId,
      productName: ledgerEntries.productName,
      category: ledgerEntries.category,
      ownerId: ledgerEntries.ownerId,
      keyId: ledgerEntries.keyId,
      keyName: sql<string | null>`max(${apiKeys.name})`,
      keyMask: sql<string | null>`max(${apiKeys.mask})`,
      amountMicro: sql<string>`sum(${ledgerEntries.amountMicro})::text`,
      voucherMicro: sql<string>`sum(${ledgerEntries.voucherMicro})::text`,
      billNum0: num('billNum0'),
      billNum1: num('billNum1'),
      basePrice0: price('basePrice0'),
      basePrice1: price('basePrice1'),
    })
    .from(ledgerEntries)
    .leftJoin(apiKeys, eq(apiKeys.id, ledgerEntries.keyId))
    .where(and(...conds))
    .groupBy(sql`1`, ledgerEntries.billingMethod, ledgerEntries.productId, ledgerEntries.productName,
      ledgerEntries.category, ledgerEntries.ownerId, ledgerEntries.keyId)
    .orderBy(sql`1`, ledgerEntries.productId, ledgerEntries.ownerId);
  return rows.map((r) => ({
    ...r,
    bucketStart: new Date(r.bucketStart),
    amountMicro: BigInt(r.amountMicro),
    voucherMicro: BigInt(r.voucherMicro),
  }));
}

export interface MonthTotals {
  monthStart: Date;
  amountMicro: bigint;
  voucherMicro: bigint;
  cashMicro: bigint;
  debtMicro: bigint;
}

/** A team's charges summed per UTC calendar month, up to `untilMs` inclusive, oldest first. */
export async function chargesByMonth(db: DbOrTx, teamId: string, untilMs: number): Promise<MonthTotals[]> {
  const month = sql`(date_trunc('month', ${ledgerEntries.createdAt} at time zone 'UTC') at time zone 'UTC')`;
  const rows = await db
    .select({
      monthStart: sql<Date>`${month}`.as('month_start'),
      amountMicro: sql<string>`sum(${ledgerEntries.amountMicro})::text`,
      voucherMicro: sql<string>`sum(${ledgerEntries.voucherMicro})::text`,
      cashMicro: sql<string>`sum(${ledgerEntries.cashMicro})::text`,
      debtMicro: sql<string>`sum(${ledgerEntries.debtMicro})::text`,
    })
    .from(ledgerEntries)
    .where(and(eq(ledgerEntries.teamId, teamId), eq(ledgerEntries.kind, 'charge'), lte(ledgerEntries.createdAt, new Date(untilMs))))
    .groupBy(sql`1`)
    .orderBy(sql`1`);
  return rows.map((r) => ({
    monthStart: new Date(r.monthStart),
    amountMicro: BigInt(r.amountMicro),
    voucherMicro: BigInt(r.voucherMicro),
    cashMicro: BigInt(r.cashMicro),
    debtMicro: BigInt(r.debtMicro),
  }));
}

/** What the team's top-ups up to `untilMs` inclusive repaid of its debt (their negative debt parts). */
export async function repaidByTopupsMicro(db: DbOrTx, teamId: string, untilMs: number): Promise<bigint> {
  const [row] = await db
    .select({ repaidMicro: sql<string>`coalesce(-sum(${ledgerEntries.debtMicro}), 0)::text` })
    .from(ledgerEntries)
    .where(and(eq(ledgerEntries.teamId, teamId), eq(ledgerEntries.kind, 'topup'), lte(ledgerEntries.createdAt, new Date(untilMs))));
  return BigInt(row?.repaidMicro ?? '0');
}

export function escapeLike(s: string): string {
  return s.replace(/[\\%_]/g, (c) => '\\' + c);
}

export type SpendGroup = 'category' | 'model' | 'apikey';

/**
 * Spend per time bucket and one dimension (the console's chart): charges only, summed in the
 * database, so a year of usage is one row per bucket and group. `model` groups by product
 * name (a model call's product is its model); `apikey` by key (charges of no key left out).
 */
export async function aggregateSpend(db: DbOrTx, f: { teamId: string; bucket: Bucket; fromMs: number; toMs: number; groupBy: SpendGroup }): Promise<{ bucketStart: Date; group: string; amountMicro: bigint }[]> {
  const conds: SQL[] = [
    eq(ledgerEntries.teamId, f.teamId),
    eq(ledgerEntries.kind, 'charge'),
    gte(ledgerEntries.createdAt, new Date(f.fromMs)),
    lt(ledgerEntries.createdAt, new Date(f.toMs)),
  ];
  if (f.groupBy === 'apikey') conds.push(sql`${ledgerEntries.keyId} is not null`);
  const bucket = sql.raw(`'${f.bucket}'`); // from a closed set, never user text
  const bucketExpr = sql`(date_trunc(${bucket}, ${ledgerEntries.createdAt} at time zone 'UTC') at time zone 'UTC')`;
  const group = f.groupBy === 'category' ? sql`${ledgerEntries.category}`
    : f.groupBy === 'model' ? sql`${ledgerEntries.productName}`
    : sql`coalesce(max(${apiKeys.name}), ${ledgerEntries.keyId})`;
  const groupKey = f.groupBy === 'category' ? ledgerEntries.category : f.groupBy === 'model' ? ledgerEntries.productName : ledgerEntries.keyId;
  const rows = await db
    .select({
      bucketStart: sql<Date>`${bucketExpr}`.as('bucket_start'),
      group: sql<string>`${group}`.as('spend_group'),
      amountMicro: sql<string>`sum(${ledgerEntries.amountMicro})::text`,
    })
    .from(ledgerEntries)
    .leftJoin(apiKeys, eq(apiKeys.id, ledgerEntries.keyId))
    .where(and(...conds))
    .groupBy(sql`1`, groupKey)
    .orderBy(sql`1`);
  return rows.map((r) => ({ bucketStart: new Date(r.bucketStart), group: r.group ?? '', amountMicro: BigInt(r.amountMicro) }));
}
