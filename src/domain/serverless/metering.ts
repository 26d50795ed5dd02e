// Per-second metering of serverless workers into the ledger, as instances are metered
// (domain/compute/metering.ts: lifetime totals, so no rounding drifts and no second is billed
// twice). A worker is billed while `starting` or `running`, idle time included, at its
// endpoint's price × gpuNum; category `serverless`, owner the endpoint, payer its creator.
import type { Tx } from '../../store/db.ts';
import type { EndpointRow, WorkerRow } from '../../store/serverless-workers.ts';
import { lockTeamOrThrow, postLockedTx } from '../billing/ledger.ts';
import { BILLING_METHOD } from '../billing/codes.ts';
import { consumeHoldTx } from '../spend/holds.ts';
import { costMicro } from '../compute/metering.ts';
import type { Payer } from '../spend/scopes.ts';

export function payerOfEndpoint(ep: Pick<EndpointRow, 'teamId' | 'memberId' | 'keyId'>): Payer {
  return { teamId: ep.teamId, memberId: ep.memberId, keyId: ep.keyId };
}

export interface WorkerMeterPatch {
  meterFromMs?: number;
  meteredSeconds?: number;
  meteredMicro?: bigint;
}

/**
 * Bill the whole seconds since meterFromMs, up to `untilMs`, inside `tx` holding the worker's
 * row lock. A partial second stays on the meter (and is not billed when the worker stops).
 */
export async function meterWorkerTx(tx: Tx, ep: EndpointRow, w: WorkerRow, untilMs: number): Promise<WorkerMeterPatch> {
  if (w.meterFromMs === null) return {};
  const seconds = Math.floor((untilMs - w.meterFromMs) / 1000);
  if (seconds <= 0) return {};
  const gpuNum = ep.spec.workerConfig.gpuNum;
  const totalSeconds = w.meteredSeconds + seconds;
  const totalMicro = costMicro(totalSeconds, gpuNum, ep.priceUnits);
  const amount = totalMicro - w.meteredMicro;
  if (amount > 0n) {
    const payer = payerOfEndpoint(ep);
    const team = await lockTeamOrThrow(tx, ep.teamId);
    await postLockedTx(tx, team, [{
      teamId: ep.teamId, kind: 'charge', amountMicro: amount, idempotencyKey: `worker:${w.id}:s${w.meteredSeconds}`,
      category: 'serverless', billingMethod: BILLING_METHOD.payAsYouGo, productId: ep.spec.productId,
      productName: ep.productName, ownerId: ep.id, memberId: ep.memberId, keyId: ep.keyId,
      // billNum0: GPU-seconds in this posting; basePrice0: units per GPU-hour
      detail: { billNum0: String(seconds * gpuNum), basePrice0: ep.priceUnits.toString(), seconds: String(seconds), workerId: w.id },
      atMs: untilMs,
    }], untilMs);
    await consumeHoldTx(tx, { ownerId: w.id, payer }, amount, untilMs);
  }
  return { meterFromMs: w.meterFromMs + seconds * 1000, meteredSeconds: totalSeconds, meteredMicro: totalMicro };
}
