// Endpoint operations of the tenant API. They change the endpoint row only: the reconciler
// (README.md) moves workers to match `desiredWorkers` and the spec's version afterwards.
// Each change is announced after commit as `endpoint.changed` (the router drops what it
// cached for the appName, the reconciler looks at once).
import { newDnsId } from '../../lib/ids.ts';
import { MICRO_PER_UNIT } from '../../lib/money.ts';
import type { Tx } from '../../store/db.ts';
import * as q from '../../store/serverless-endpoints.ts';
import type { Principal } from '../roles.ts';
import type { Payer } from '../spend/scopes.ts';
import { inTransaction } from '../changes.ts';
import { paging } from '../compute/templates.ts';
import { getLimits } from './limits.ts';
import { resolveSpec, type EndpointInput } from './spec.ts';
import { UPDATABLE_STATES, type EndpointState } from './codes.ts';
import { appNameTaken, endpointNotFound, wrongState } from './errors.ts';
import type { Serverless } from './service.ts';
import { announceEndpointState } from './webhooks.ts';
import { workerUnits } from './metering.ts';

/** Who pays for an endpoint's GPU time: its team, and the member and key that created it. */
export function payerOfEndpoint(row: Pick<q.EndpointRow, 'teamId' | 'memberId' | 'keyId'>): Payer {
  return { teamId: row.teamId, memberId: row.memberId, keyId: row.keyId };
}

/**
 * What `workers` workers of `gpuNum` GPUs (a CPU worker, gpuNum 0: one unit, metering.ts) cost
 * for `seconds` at `priceUnits` per GPU-hour, in micro-units (rounded down to the micro-unit:
 * 10^-10 USD).
 */
export function workerHoldMicro(workers: number, gpuNum: number, priceUnits: bigint, seconds: number): bigint {
  return BigInt(workers) * BigInt(workerUnits(gpuNum)) * priceUnits * MICRO_PER_UNIT * BigInt(seconds) / 3600n;
}

/** Run `fn`, telling a race lost on the (team, appName) index as the name being taken. */
async function claimingAppName<T>(field: string, appName: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (q.isAppNameTaken(e)) throw appNameTaken(field, appName);
    throw e;
  }
}

export async function createEndpoint(s: Serverless, p: Principal, input: EndpointInput): Promise<string> {
  const { ctx } = s;
  const now = ctx.clock.nowMs();
  const id = newDnsId('endpoint', now);
  const limits = await getLimits(ctx);
  const r = await resolveSpec(ctx, p.teamId, input, { prefix: 'endpoint.', limits, id });
  const { spec } = r;
  const minNum = spec.workerConfig.minNum;
  // The first workers must be affordable for holdSeconds (none to pay for when scaling from zero).
  const cost = workerHoldMicro(minNum, spec.workerConfig.gpuNum, r.priceUnits, s.settings.holdSeconds);
  const what = `${s.settings.holdSeconds} s of ${minNum} worker(s) × ${spec.workerConfig.gpuNum} × ${r.productName}`;
  const payer: Payer = { teamId: p.teamId, memberId: p.memberId, keyId: p.keyId };
  await claimingAppName('endpoint.appName', spec.appName, () => s.spend.withReservation(payer, cost, what, () => inTransaction(ctx, async (tx) => {
    await q.insertEndpoint(tx, {
      id, teamId: p.teamId, memberId: p.memberId, keyId: p.keyId, appName: spec.appName,
      state: minNum === 0 ? 'serving' : 'initializing', stateSinceMs: now, spec, specVersion: 1,
      productName: r.productName, priceUnits: r.priceUnits, desiredWorkers: minNum, nextReconcileAtMs: now,
      createdAt: new Date(now), updatedAt: new Date(now),
    });
    ctx.changes.publish({ type: 'endpoint.changed', teamId: p.teamId, endpointId: id, appName: spec.appName });
  })));
  return id;
}

/** An endpoint of the caller's team (locked when `tx` is given); another team's answers as missing. */
export async function requireEndpoint(s: Serverless, teamId: string, id: string, tx?: Tx): Promise<q.EndpointRow> {
  const row = tx ? await q.lockEndpoint(tx, id) : await q.findEndpoint(s.ctx.db, id);
  if (!row || row.teamId !== teamId) throw endpointNotFound(id);
  return row;
}

function refuseUnlessUpdatable(row: q.EndpointRow): void {
  if ((UPDATABLE_STATES as readonly string[]).includes(row.state)) return;
  throw wrongState(`cannot update endpoint ${row.id}: it is ${row.state}`, {
    field: 'id', rule: `update is not allowed while the endpoint is ${row.state}`, state: row.state, id: row.id,
  });
}

/** Tries of an update whose endpoint changed between its read and its lock (another update won). */
const UPDATE_TRIES = 3;

/**
 * Full replacement of the spec (spec.ts says what an omitted field becomes); a new version
 * for the reconciler to roll out, the product's price as of now, and a stopped or failed
 * endpoint starts again.
 */
export async function updateEndpoint(s: Serverless, p: Principal, id: string, input: EndpointInput): Promise<void> {
  const { ctx } = s;
  for (let attempt = 1; ; attempt++) {
    // resolved outside the transaction (lookups on the embedded store's one connection), then checked under the lock
    const pre = await requireEndpoint(s, p.teamId, id);
    refuseUnlessUpdatable(pre);
    const limits = await getLimits(ctx);
    const r = await resolveSpec(ctx, p.teamId, input, { prefix: '', limits, id, current: { spec: pre.spec } });
    const { spec } = r;
    const done = await claimingAppName('appName', spec.appName, () => inTransaction(ctx, async (tx) => {
      const row = await requireEndpoint(s, p.teamId, id, tx);
      if (row.specVersion !== pre.specVersion) return false; // judged against a spec that is gone: again
      refuseUnlessUpdatable(row);
      const now = ctx.clock.nowMs();
      const { minNum, maxNum } = spec.workerConfig;
      const restart = row.state === 'stopped' || row.state === 'failed';
      const state: EndpointState = restart ? (minNum === 0 ? 'serving' : 'initializing') : row.state as EndpointState;
      await q.updateEndpoint(tx, id, {
        appName: spec.appName, spec, specVersion: row.specVersion + 1, productName: r.productName, priceUnits: r.priceUnits,
        desiredWorkers: Math.min(Math.max(row.desiredWorkers, minNum), maxNum), nextReconcileAtMs: now, updatedAt: new Date(now),
        ...(restart ? { state, stateSinceMs: now, stateError: '', stateMessage: '' } : {}),
      });
      await announceEndpointState(ctx, tx, { endpoint: { ...row, appName: spec.appName }, from: row.state, to: state, nowMs: now });
      ctx.changes.publish({
        type: 'endpoint.changed', teamId: row.teamId, endpointId: id, appName: spec.appName,
        ...(row.appName !== spec.appName ? { previousAppName: row.appName } : {}),
      });
      return true;
    }));
    if (done) return;
    if (attempt >= UPDATE_TRIES) {
      throw wrongState(`endpoint ${id} is being updated by another request; send the update again`, { field: 'id', rule: 'changed during the update', id });
    }
  }
}

/** The endpoint goes: terminating at once (its URL answers 404), the reconciler removes its workers, then the row. */
export async function deleteEndpoint(s: Serverless, p: Principal, id: string): Promise<void> {
  const { ctx } = s;
  await inTransaction(ctx, async (tx) => {
    const row = await requireEndpoint(s, p.teamId, id, tx);
    if (row.state === 'terminating') return; // asked again: already on its way
    const now = ctx.clock.nowMs();
    await q.updateEndpoint(tx, id, { state: 'terminating', stateSinceMs: now, desiredWorkers: 0, nextReconcileAtMs: now, updatedAt: new Date(now) });
    await announceEndpointState(ctx, tx, { endpoint: row, from: row.state, to: 'terminating', nowMs: now });
    ctx.changes.publish({ type: 'endpoint.changed', teamId: row.teamId, endpointId: id, appName: row.appName });
  });
}

export async function listEndpoints(s: Serverless, teamId: string, f: { pageSize?: number | undefined; pageNum?: number | undefined }) {
  const pg = paging(f.pageSize, f.pageNum);
  const page = await q.listEndpoints(s.ctx.db, { teamId, limit: pg.limit, offset: pg.offset });
  const workers = await q.workersOf(s.ctx.db, page.rows.map((r) => r.id));
  return { rows: page.rows, workers, total: page.total };
}

export async function getEndpoint(s: Serverless, teamId: string, id: string) {
  const row = await requireEndpoint(s, teamId, id);
  return { row, workers: await q.workersOf(s.ctx.db, [id]) };
}
