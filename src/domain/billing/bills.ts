// Bill queries: fixed-term bills, usage bills and API-key bills, all read from the ledger.
import { microToUnitString, splitMicroToUnits, unitsToUsd } from '../../lib/money.ts';
import type { Ctx } from '../context.ts';
import * as q from '../../store/bills.ts';
import { resolveBillRange } from './range.ts';
import { badPeriod, badProduct } from './errors.ts';

export const FIXED_TERM_CATEGORIES = ['summary', 'gpu', 'serverless', 'cloud_storage', 'local_storage', 'image', 'bare_metal'] as const;
export const USAGE_CATEGORIES = ['summary', 'gpu', 'llm', 'serverless', 'cloud_storage', 'local_storage', 'image', 'bare_metal', 'batch', 'media'] as const;
export const TRADE_TYPES = ['monthly_new_buy', 'monthly_re_buy', 'monthly_re_config'] as const;

const CYCLE_BUCKETS = { Hour: 'hour', Day: 'day', Week: 'week', Month: 'month' } as const;
export type CycleType = keyof typeof CYCLE_BUCKETS;
export const USAGE_CYCLE_TYPES = ['Hour', 'Day', 'Week', 'Month'] as const;
export const APIKEY_CYCLE_TYPES = ['Day', 'Week', 'Month'] as const;

function checkCategory(value: string | undefined, allowed: readonly string[], field: string): string | undefined {
  if (value === undefined || value === '') return undefined;
  if (!allowed.includes(value)) {
    throw badProduct(field, `one of ${allowed.join('|')}`, `${field}: must be one of ${allowed.join(', ')}`);
  }
  return value === 'summary' ? undefined : value;
}

function checkCycle(value: string, allowed: readonly string[]): q.Bucket {
  if (!allowed.includes(value)) {
    throw badPeriod('cycleType', `one of ${allowed.join('|')}`, `cycleType: must be one of ${allowed.join(', ')}`);
  }
  return CYCLE_BUCKETS[value as CycleType];
}

const s = (ms: number) => String(Math.floor(ms / 1000));

/**
 * A bill row's money: amount = voucherAmount + payAmount exactly, in whole units. payAmount
 * is everything vouchers did not pay: cash, and what was owed (put on credit) for later
 * top-ups to repay. The amount and the voucher part are rounded; payAmount is the rest.
 */
function billMoney(amountMicro: bigint, voucherMicro: bigint) {
  const [voucher, pay] = splitMicroToUnits([voucherMicro, amountMicro - voucherMicro]) as [bigint, bigint];
  return {
    amount: (voucher + pay).toString(),
    voucherAmount: voucher.toString(),
    payAmount: pay.toString(),
    payAmountDisplay: unitsToUsd(pay),
  };
}

export interface FixedTermQuery {
  category?: string | undefined;
  productName?: string | undefined;
  startTime?: number | undefined;
  endTime?: number | undefined;
  ownerId?: string | undefined;
}

export async function listFixedTermBills(ctx: Ctx, teamId: string, query: FixedTermQuery) {
  const category = checkCategory(query.category, FIXED_TERM_CATEGORIES, 'category');
  const { fromMs, toMs } = resolveBillRange(query.startTime, query.endTime, ctx.clock.nowMs());
  const rows = await q.listFixedTermBills(ctx.db, { teamId, category, productName: query.productName, ownerId: query.ownerId, fromMs, toMs });
  return rows.map(({ bill: b, amountMicro, voucherMicro }) => {
    const created = b.createdAt.getTime();
    return {
      userId: b.teamId,
      ...(b.memberId ? { memberId: b.memberId } : {}),
      startTime: String(b.startTimeS),
      endTime: String(b.endTimeS),
      productName: b.productName,
      productCategory: b.productCategory,
      productId: b.productId,
      ownerID: b.ownerId,
      tradeMode: 'monthly',
      tradeType: b.tradeType,
      billingMethod: b.billingMethod,
      basePrice: b.basePriceUnits.toString(),
      billNum: b.billNum,
      ...billMoney(amountMicro, voucherMicro),
      pricePrecision: b.pricePrecision,
      createTime: s(created),
      cycle: cycleOfSeconds(b.startTimeS),
      ...(b.storageDays !== null ? { storageDays: b.storageDays } : {}),
    };
  });
}

function cycleOfSeconds(sec: number): string {
  const d = new Date(sec * 1000);
  return `${d.getUTCFullYear()}-${String(d.getUTCMonth() + 1).padStart(2, '0')}`;
}

function bucketEnd(start: Date, bucket: q.Bucket): number {
  const t = start.getTime();
  if (bucket === 'hour') return t + 3_600_000;
  if (bucket === 'day') return t + 86_400_000;
  if (bucket === 'week') return t + 7 * 86_400_000;
  return Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1);
}

function usageRowView(teamId: string, r: q.UsageRow, bucket: q.Bucket) {
  return {
    userId: teamId,
    startTime: s(r.bucketStart.getTime()),
    endTime: s(bucketEnd(r.bucketStart, bucket)),
    billingMethod: r.billingMethod,
    productName: r.productName,
    category: r.category,
    ownerID: r.ownerId,
    billNum0: r.billNum0,
    billNum1: r.billNum1,
    basePrice0: r.basePrice0,
    basePrice1: r.basePrice1,
    // Gantry grants no discounts: the discounted price is the base price.
    discountPrice0: r.basePrice0,
    discountPrice1: r.basePrice1,
    ...billMoney(r.amountMicro, r.voucherMicro),
    pricePrecision: 1,
    productId: r.productId,
  };
}

export interface UsageQuery {
  cycleType: string;
  productCategory?: string | undefined;
  category?: string | undefined;
  productName?: string | undefined;
  startTime?: number | undefined;
  endTime?: number | undefined;
  ownerId?: string | undefined;
}

export async function listUsageBills(ctx: Ctx, teamId: string, query: UsageQuery) {
  const bucket = checkCycle(query.cycleType, USAGE_CYCLE_TYPES);
  const category = checkCategory(query.productCategory, USAGE_CATEGORIES, 'productCategory')
    ?? checkCategory(query.category, USAGE_CATEGORIES, 'category');
  const { fromMs, toMs } = resolveBillRange(query.startTime, query.endTime, ctx.clock.nowMs());
  const rows = await q.aggregateUsage(ctx.db, { teamId, bucket, fromMs, toMs, category, productName: query.productName, ownerId: query.ownerId });
  return rows.map((r) => usageRowView(teamId, r, bucket));
}

export async function listApiKeyBills(ctx: Ctx, teamId: string, query: UsageQuery) {
  const bucket = checkCycle(query.cycleType, APIKEY_CYCLE_TYPES);
  const category = checkCategory(query.category, USAGE_CATEGORIES, 'category');
  const { fromMs, toMs } = resolveBillRange(query.startTime, query.endTime, ctx.clock.nowMs());
  const rows = await q.aggregateUsage(ctx.db, { teamId, bucket, fromMs, toMs, category, productName: query.productName, byKey: true });
  return rows.map((r) => ({
    ...usageRowView(teamId, r, bucket),
    ownerID: r.keyId ?? r.ownerId,
    apikeyName: r.keyName ?? '',
    apikeyMask: r.keyMask ?? '',
  }));
}

/** How far back the spend chart reaches in one query. */
export const MAX_SPEND_RANGE_DAYS = 366;
export const SPEND_GROUPS = ['category', 'model', 'apikey'] as const;

export interface SpendQuery {
  cycleType: string;
  groupBy: string;
  startTime?: number | undefined;
  endTime?: number | undefined;
}

/** Spend over time by category, model or API key, up to a year in one query (Day, Week or Month buckets). */
export async function spendSeries(ctx: Ctx, teamId: string, query: SpendQuery) {
  const bucket = checkCycle(query.cycleType, APIKEY_CYCLE_TYPES);
  if (!(SPEND_GROUPS as readonly string[]).includes(query.groupBy)) {
    throw badPeriod('groupBy', `one of ${SPEND_GROUPS.join('|')}`, `groupBy: must be one of ${SPEND_GROUPS.join(', ')}`);
  }
  const { fromMs, toMs } = resolveBillRange(query.startTime, query.endTime, ctx.clock.nowMs(), MAX_SPEND_RANGE_DAYS);
  const rows = await q.aggregateSpend(ctx.db, { teamId, bucket, fromMs, toMs, groupBy: query.groupBy as q.SpendGroup });
  return rows.map((r) => ({ startTime: s(r.bucketStart.getTime()), group: r.group, amount: microToUnitString(r.amountMicro) }));
}
