// The monthly statement: one row per UTC calendar month with charges, read from the ledger.
// Rules are stated in ./README.md ("Monthly statements"); keep the two in step.
import { derivedId } from '../../lib/ids.ts';
import { minBig, splitMicroToUnits } from '../../lib/money.ts';
import type { Ctx } from '../context.ts';
import * as q from '../../store/bills.ts';
import { badPeriod } from './errors.ts';

export const STATEMENT_STATUSES = ['pending', 'outed', 'paid', 'overdue'] as const;
export type StatementStatus = (typeof STATEMENT_STATUSES)[number];

/** A closed month's unpaid debt is due this many days after the month ends; overdue after. */
export const STATEMENT_DUE_DAYS = 15;
/** Without startMonth: the current month and the 11 before it. */
export const STATEMENT_DEFAULT_MONTHS = 12;
export const STATEMENT_PAGE_SIZE_DEFAULT = 10;
export const STATEMENT_PAGE_SIZE_MAX = 100;
/** Months are counted from here: Date.UTC reads years 0-99 as 1900-1999. */
const FIRST_YEAR = 1970;
const MONTH_PATTERN = /^([0-9]{4})-(0[1-9]|1[0-2])$/;
const DAY_MS = 86_400_000;

export interface StatementQuery {
  startMonth?: string | undefined;
  page?: number | undefined;
  pageSize?: number | undefined;
}

/** Months as one integer (year × 12 + month − 1), so that month arithmetic is plain addition. */
function monthIndexOf(ms: number): number {
  const d = new Date(ms);
  return d.getUTCFullYear() * 12 + d.getUTCMonth();
}
const monthStartMs = (index: number) => Date.UTC(Math.floor(index / 12), index % 12, 1);
const monthLabel = (index: number) => `${Math.floor(index / 12)}-${String((index % 12) + 1).padStart(2, '0')}`;

function parseStartMonth(text: string): number {
  const m = MONTH_PATTERN.exec(text);
  if (!m || Number(m[1]) < FIRST_YEAR) {
    throw badPeriod('startMonth', `YYYY-MM, from ${FIRST_YEAR}-01`, `startMonth: must be a month YYYY-MM, from ${FIRST_YEAR}-01`);
  }
  return Number(m[1]) * 12 + Number(m[2]) - 1;
}

function checkPaging(page: number, pageSize: number): void {
  if (!Number.isInteger(page) || page < 1) {
    throw badPeriod('page', '>= 1', 'page: must be an integer from 1');
  }
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > STATEMENT_PAGE_SIZE_MAX) {
    throw badPeriod('pageSize', `1-${STATEMENT_PAGE_SIZE_MAX}`, `pageSize: must be an integer from 1 to ${STATEMENT_PAGE_SIZE_MAX}`);
  }
}

/**
 * The team's monthly statements from startMonth to the current month, newest first, one
 * page of them. Top-ups repay debt oldest month first, so every month with charges is read
 * (from the team's first), whatever page is asked for.
 */
export async function listMonthlyStatements(ctx: Ctx, teamId: string, query: StatementQuery) {
  const nowMs = ctx.clock.nowMs();
  const currentMonth = monthIndexOf(nowMs);
  const fromMonth = query.startMonth !== undefined ? parseStartMonth(query.startMonth) : currentMonth - (STATEMENT_DEFAULT_MONTHS - 1);
  const page = query.page ?? 1;
  const pageSize = query.pageSize ?? STATEMENT_PAGE_SIZE_DEFAULT;
  checkPaging(page, pageSize);

  const [months, repaidMicro] = await Promise.all([
    q.chargesByMonth(ctx.db, teamId, nowMs),
    q.repaidByTopupsMicro(ctx.db, teamId, nowMs),
  ]);
  let unallocatedMicro = repaidMicro;
  const rows = months.map((m) => {
    const repaid = minBig(m.debtMicro, unallocatedMicro);
    unallocatedMicro -= repaid;
    return statementRow(teamId, monthIndexOf(m.monthStart.getTime()), m, repaid, currentMonth, nowMs);
  });
  const shown = rows.filter((r) => r.month >= fromMonth).reverse(); // charges up to now: no month after this one
  return shown.slice((page - 1) * pageSize, page * pageSize).map((r) => r.view);
}

function statementRow(teamId: string, month: number, m: q.MonthTotals, repaidMicro: bigint, currentMonth: number, nowMs: number) {
  // The parts in the order the wallet spends (vouchers, cash, then debt: repaid, still
  // owed), shown so that they add up to the total exactly.
  const [voucher, cash, repaid, unpaid] = splitMicroToUnits([
    m.voucherMicro, m.cashMicro, repaidMicro, m.debtMicro - repaidMicro,
  ]) as [bigint, bigint, bigint, bigint];
  const total = voucher + cash + repaid + unpaid;
  const startMs = monthStartMs(month);
  const endMs = monthStartMs(month + 1);
  return {
    month,
    view: {
      billId: derivedId('statement', startMs, `${teamId}/${monthLabel(month)}`),
      userId: teamId,
      billingMonth: monthLabel(month),
      totalAmount: total.toString(),
      // Gantry grants no discounts: the total before discounts is the total.
      originTotalAmount: total.toString(),
      voucherPayAmount: voucher.toString(),
      cashPayAmount: cash.toString(),
      debtAmount: (repaid + unpaid).toString(),
      status: statusOf(month, unpaid, endMs, currentMonth, nowMs),
      // No invoices yet (src/domain/billing/README.md).
      invoiceUrl: '',
      startTime: String(startMs / 1000),
      endTime: String(endMs / 1000),
      repaidAmount: repaid.toString(),
    },
  };
}

/** Judged on the amounts shown, so that a row never says paid beside a debt it shows unpaid. */
function statusOf(month: number, unpaidUnits: bigint, endMs: number, currentMonth: number, nowMs: number): StatementStatus {
  if (month >= currentMonth) return 'pending';
  if (unpaidUnits === 0n) return 'paid';
  return nowMs < endMs + STATEMENT_DUE_DAYS * DAY_MS ? 'outed' : 'overdue';
}
