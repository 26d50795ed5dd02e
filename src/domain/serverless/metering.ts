// Per-second metering of serverless workers into the ledger, through the same meter as
// instances (domain/compute/metering.ts). A worker is billed while `starting` or `running`,
// idle time included, at its endpoint's price × gpuNum; category `serverless`, owner the
// endpoint, payer its creator; the worker's admission hold is consumed as it is billed.
import type { Tx } from '../../store/db.ts';
import type { EndpointRow, WorkerRow } from '../../store/serverless-workers.ts';
import { BILLING_METHOD } from '../billing/codes.ts';
import { meterSecondsTx, type MeterPatch } from '../compute/metering.ts';
import type { Payer } from '../spend/scopes.ts';

export function payerOfEndpoint(ep: Pick<EndpointRow, 'teamId' | 'memberId' | 'keyId'>): Payer {
  return { teamId: ep.teamId, memberId: ep.memberId, keyId: ep.keyId };
}

/** Bill the whole seconds the worker ran up to `untilMs`, inside `tx` holding its row lock. */
export function meterWorkerTx(tx: Tx, ep: EndpointRow, w: WorkerRow, untilMs: number): Promise<MeterPatch> {
  return meterSecondsTx(tx, w, {
    keyPrefix: `worker:${w.id}`, teamId: ep.teamId, memberId: ep.memberId, keyId: ep.keyId, gpuNum: ep.spec.workerConfig.gpuNum,
    priceUnitsPerGpuHour: ep.priceUnits, category: 'serverless', billingMethod: BILLING_METHOD.payAsYouGo,
    productId: ep.spec.productId, productName: ep.productName, ownerId: ep.id, holdOwnerId: w.id, detail: { workerId: w.id },
  }, untilMs);
}
