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

/**
 * Bill whole seconds of GPU time since meterFromMs, inside `tx` holding the instance lock.
 * Each posting is the lifetime cost now minus the lifetime cost billed before, so rounding
 * never drifts; its idempotency key is the lifetime second it starts at, so no second is
 * billed twice. A partial second stays on the meter for the next call.
 */
export async function meterTx(tx: Tx, row: q.InstanceRow, nowMs: number): Promise<MeterPatch> {
  if (row.meterFromMs === null || row.billingMode === 'monthly') return {};
  const seconds = Math.floor((nowMs - row.meterFromMs) / 1000);
  if (seconds <= 0) return {};
  const totalSeconds = row.meteredSeconds + seconds;
  const totalMicro = costMicro(totalSeconds, row.gpuNum, row.priceUnits);
  const amount = totalMicro - row.meteredMicro;
  if (amount > 0n) {
    const team = await lockTeamOrThrow(tx, row.teamId);
    await postLockedTx(tx, team, [{
      teamId: row.teamId, kind: 'charge', amountMicro: amount, idempotencyKey: `instance:${row.id}:s${row.meteredSeconds}`,
      category: 'gpu', billingMethod: BILLING_METHOD_OF[row.billingMode as BillingMode] ?? BILLING_METHOD.payAsYouGo, productId: row.productId,
      productName: row.productName, ownerId: row.id, memberId: row.memberId, keyId: row.keyId,
      // billNum0: GPU-seconds in this posting; basePrice0: units per GPU-hour
      detail: { billNum0: String(seconds * row.gpuNum), basePrice0: row.priceUnits.toString(), seconds: String(seconds) },
      atMs: nowMs,
    }], nowMs);
    // the first hour was held at admission: this much of it is now spent
    await consumeHoldTx(tx, { ownerId: row.id, payer: { teamId: row.teamId, memberId: row.memberId, keyId: row.keyId } }, amount, nowMs);
  }
  return { meterFromMs: row.meterFromMs + seconds * 1000, meteredSeconds: totalSeconds, meteredMicro: totalMicro };
}
