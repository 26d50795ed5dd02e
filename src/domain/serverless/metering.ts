// Per-second metering of serverless workers into the ledger, through the same meter as
// instances (domain/compute/metering.ts). A worker is billed while `starting` or `running`,
// idle time included, at its endpoint's price × its units (workerUnits: gpuNum, one for a CPU
// worker); category `serverless`, owner the endpoint, payer its creator; the worker's
// admission hold is consumed as it is billed.
import type { Tx } from '../../store/db.ts';
import type { EndpointRow, WorkerRow } from '../../store/serverless-workers.ts';
import { BILLING_METHOD } from '../billing/codes.ts';
import { meterSecondsTx, type MeterPatch } from '../compute/metering.ts';
import type { Payer } from '../spend/scopes.ts';

/**
 * A worker's size in units of its product (one unit: a GPU with the product's CPUs and memory
 * per GPU): `gpuNum`, or 1 for a CPU worker (`gpuNum` 0, which the operator's limits allow
 * only when `minGPUNum` is set to 0). A CPU worker runs without a GPU on one unit's CPUs and
 * memory, takes one unit of the product's inventory (store/compute.ts `gpusInUse`) and is
 * held and billed one unit's price, as an instance of kind `cpu` runs its units without
 * GPUs (domain/compute/instances.ts: cpuNum = cpuPerGpu × gpuNum, the driver given no GPU).
 */
export function workerUnits(gpuNum: number): number {
  return Math.max(1, gpuNum);
}

export function payerOfEndpoint(ep: Pick<EndpointRow, 'teamId' | 'memberId' | 'keyId'>): Payer {
  return { teamId: ep.teamId, memberId: ep.memberId, keyId: ep.keyId };
}

/** Bill the whole seconds the worker ran up to `untilMs`, inside `tx` holding its row lock. */
export function meterWorkerTx(tx: Tx, ep: EndpointRow, w: WorkerRow, untilMs: number): Promise<MeterPatch> {
  return meterSecondsTx(tx, w, {
    keyPrefix: `worker:${w.id}`, teamId: ep.teamId, memberId: ep.memberId, keyId: ep.keyId, gpuNum: workerUnits(ep.spec.workerConfig.gpuNum),
    priceUnitsPerGpuHour: ep.priceUnits, category: 'serverless', billingMethod: BILLING_METHOD.payAsYouGo,
    productId: ep.spec.productId, productName: ep.productName, ownerId: ep.id, holdOwnerId: w.id, detail: { workerId: w.id },
  }, untilMs);
}
