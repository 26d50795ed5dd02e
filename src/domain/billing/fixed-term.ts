import { invalid } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import type { Ctx } from '../context.ts';
import type { Tx } from '../../store/db.ts';
import { insertFixedTermBill } from '../../store/ledger.ts';
import { FIXED_TERM_CATEGORIES, TRADE_TYPES } from './bills.ts';
import { lockTeamOrThrow, postLockedTx, type Posted } from './ledger.ts';
import { inTransaction } from '../changes.ts';
import { BILLING_METHOD } from './codes.ts';

export interface FixedTermBillInput {
  teamId: string;
  amountMicro: bigint;
  idempotencyKey: string;
  productId: string;
  productName: string;
  productCategory: string;
  ownerId: string;
  tradeType: string;
  billingMethod?: number;
  basePriceUnits: bigint;
  billNum: string;
  startTimeS: number;
  endTimeS: number;
  memberId?: string | null;
  /** the API key that bought it: a subscription counts against that key's budget */
  keyId?: string | null;
  storageDays?: number | null;
}

function validate(b: FixedTermBillInput): void {
  if (!(TRADE_TYPES as readonly string[]).includes(b.tradeType)) throw invalid('tradeType', `must be one of ${TRADE_TYPES.join(', ')}`);
  if (b.productCategory === 'summary' || !(FIXED_TERM_CATEGORIES as readonly string[]).includes(b.productCategory)) {
    throw invalid('productCategory', `must be one of ${FIXED_TERM_CATEGORIES.filter((c) => c !== 'summary').join(', ')}`);
  }
  if (b.endTimeS <= b.startTimeS) throw invalid('endTime', 'must be after startTime');
  if (b.basePriceUnits < 0n) throw invalid('basePrice', 'must be >= 0');
}

/** A subscription bill: a ledger charge plus its fixed-term bill row, in one transaction. */
export async function postFixedTermBillTx(tx: Tx, nowMs: number, b: FixedTermBillInput): Promise<Posted> {
  validate(b);
  const team = await lockTeamOrThrow(tx, b.teamId);
  const [posted] = await postLockedTx(tx, team, [{
    teamId: b.teamId, kind: 'charge', amountMicro: b.amountMicro, idempotencyKey: b.idempotencyKey,
    category: b.productCategory, billingMethod: b.billingMethod ?? BILLING_METHOD.subscription, productId: b.productId,
    productName: b.productName, ownerId: b.ownerId, memberId: b.memberId ?? null, keyId: b.keyId ?? null,
    detail: { billNum0: b.billNum, basePrice0: b.basePriceUnits.toString() },
  }], nowMs);
  if (!posted!.duplicate) {
    await insertFixedTermBill(tx, {
      id: newId('bill', nowMs), ledgerId: posted!.entry.id, teamId: b.teamId, memberId: b.memberId ?? null,
      startTimeS: b.startTimeS, endTimeS: b.endTimeS, productName: b.productName, productCategory: b.productCategory,
      productId: b.productId, ownerId: b.ownerId, tradeType: b.tradeType, billingMethod: b.billingMethod ?? BILLING_METHOD.subscription,
      basePriceUnits: b.basePriceUnits, billNum: b.billNum, storageDays: b.storageDays ?? null, createdAt: new Date(nowMs),
    });
  }
  return posted!;
}

export async function postFixedTermBill(ctx: Ctx, b: FixedTermBillInput): Promise<Posted> {
  const posted = await inTransaction(ctx, (tx) => postFixedTermBillTx(tx, ctx.clock.nowMs(), b));
  return posted;
}
