// Per-second metering of on-demand and spot instances into the ledger. Rules in ./README.md.
import { MICRO_PER_UNIT } from '../../lib/money.ts';
import type { Tx } from '../../store/db.ts';
import type * as q from '../../store/compute.ts';
import { lockTeamOrThrow, postLockedTx } from '../billing/ledger.ts';
import { consumeHoldTx } from '../spend/holds.ts';
import { BILLING_METHOD_OF, type BillingMode } from './states.ts';
import { BILLING_METHOD } from '../billing/codes.ts';

export interface MeterPatch {
  meterFromMs?: number;
  meteredSeconds?: number;
  meteredMicro?: bigint;
}

/** Lifetime cost of `seconds` of GPU time: floor(seconds × gpus × price/h × 1e6 / 3600) micro. */
export function costMicro(seconds: number, gpuNum: number, priceUnitsPerGpuHour: bigint): bigint {
  return (BigInt(seconds) * BigInt(gpuNum) * priceUnitsPerGpuHour * MICRO_PER_UNIT) / 3600n;
}

/** A meter of GPU time: time from meterFromMs on is not billed yet; the rest are lifetime totals. */
export interface Meter {
  meterFromMs: number | null;
  meteredSeconds: number;
  meteredMicro: bigint;
}

/** What a meter's postings are: who pays, for what, at which price. */
export interface MeteredCharge {
  /** idempotency keys are `<keyPrefix>:s<lifetime second the posting starts at>` */
  keyPrefix: string;
  teamId: string;
  memberId: string | null;
  keyId: string | null;
  gpuNum: number;
  priceUnitsPerGpuHour: bigint;
  category: string;
  billingMethod: number;
  productId: string;
  productName: string;
  ownerId: string;
  /** the hold set aside for this work at admission, consumed by each posting */
  holdOwnerId: string;
  detail?: Record<string, string>;
}

/**
 * Bill whole seconds of GPU time since meterFromMs up to `untilMs`, inside `tx` holding the
 * metered row's lock. Each posting is the lifetime cost now minus the lifetime cost billed
 * before, so rounding never drifts; its idempotency key is the lifetime second it starts at,
 * so no second is billed twice. A partial second stays on the meter for the next call.
 * Instances (below) and serverless workers (domain/serverless/metering.ts) both bill here.
 */
export async function meterSecondsTx(tx: Tx, m: Meter, c: MeteredCharge, untilMs: number): Promise<MeterPatch> {
  if (m.meterFromMs === null) return {};
  const seconds = Math.floor((untilMs - m.meterFromMs) / 1000);
  if (seconds <= 0) return {};
  const totalSeconds = m.meteredSeconds + seconds;
  const totalMicro = costMicro(totalSeconds, c.gpuNum, c.priceUnitsPerGpuHour);
  const amount = totalMicro - m.meteredMicro;
  if (amount > 0n) {
    const payer = { teamId: c.teamId, memberId: c.memberId, keyId: c.keyId };
    const team = await lockTeamOrThrow(tx, c.teamId);
    await postLockedTx(tx, team, [{
      teamId: c.teamId, kind: 'charge', amountMicro: amount, idempotencyKey: `${c.keyPrefix}:s${m.meteredSeconds}`,
      category: c.category, billingMethod: c.billingMethod, productId: c.productId, productName: c.productName, ownerId: c.ownerId,
      memberId: c.memberId, keyId: c.keyId,
      // billNum0: GPU-seconds in this posting; basePrice0: units per GPU-hour
      detail: { billNum0: String(seconds * c.gpuNum), basePrice0: c.priceUnitsPerGpuHour.toString(), seconds: String(seconds), ...c.detail },
      atMs: untilMs,
    }], untilMs);
    // the work's first hour was held at admission: this much of it is now spent
    await consumeHoldTx(tx, { ownerId: c.holdOwnerId, payer }, amount, untilMs);
  }
  return { meterFromMs: m.meterFromMs + seconds * 1000, meteredSeconds: totalSeconds, meteredMicro: totalMicro };
}

/** Bill an on-demand or spot instance's GPU time up to `nowMs` (monthly instances are paid up front). */
export async function meterTx(tx: Tx, row: q.InstanceRow, nowMs: number): Promise<MeterPatch> {
  if (row.billingMode === 'monthly') return {};
  return meterSecondsTx(tx, row, {
    keyPrefix: `instance:${row.id}`, teamId: row.teamId, memberId: row.memberId, keyId: row.keyId, gpuNum: row.gpuNum,
    priceUnitsPerGpuHour: row.priceUnits, category: 'gpu',
    billingMethod: BILLING_METHOD_OF[row.billingMode as BillingMode] ?? BILLING_METHOD.payAsYouGo,
    productId: row.productId, productName: row.productName, ownerId: row.id, holdOwnerId: row.id,
  }, nowMs);
}
