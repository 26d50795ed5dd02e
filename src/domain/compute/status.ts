// The one place an instance changes status: moveTx keeps metering, GPU release, the
// reconcile schedule, the instance's log and its webhooks in step with the status.
import type { Tx } from '../../store/db.ts';
import * as q from '../../store/compute.ts';
import { isBilled, RELEASED_STATUSES, type InstanceStatus } from './states.ts';
import { meterTx } from './metering.ts';
import { setHoldTx } from '../spend/holds.ts';
import { announceInstanceState } from './webhooks.ts';
import { logStatusTx } from './logs.ts';
import { payerOf, type Compute } from './compute.ts';

/** When the reconciler should look at an instance next, given the state it is in. */
export function nextCheckAt(c: Compute, row: Pick<q.InstanceRow, 'billingMode' | 'endTimeS' | 'spotStatus' | 'spotReclaimTimeS'>, status: InstanceStatus, nowMs: number): number | null {
  if (status === 'removed' || status === 'exited') return null;
  if (status !== 'running') return nowMs; // transitional: act now
  let at = nowMs + c.timings.meterIntervalMs;
  if (row.billingMode === 'monthly' && row.endTimeS > 0) at = Math.min(at, row.endTimeS * 1000);
  if (row.spotStatus === 'notified' && row.spotReclaimTimeS > 0) at = Math.min(at, row.spotReclaimTimeS * 1000);
  return at;
}

/**
 * Change an instance's status inside `tx` (which holds the instance row lock). GPU time up
 * to now is billed before a metered instance leaves a billed state; entering one starts
 * the meter.
 */
export async function moveTx(tx: Tx, c: Compute, row: q.InstanceRow, to: InstanceStatus, nowMs: number, extra: Partial<q.InstanceInsert> = {}, opts: { billUntilMs?: number | undefined } = {}): Promise<q.InstanceRow> {
  const patch: Partial<q.InstanceInsert> = { ...extra, status: to, updatedAt: new Date(nowMs) };
  if (to !== row.status) patch.statusSinceMs = nowMs;
  let meterFromMs = row.meterFromMs;
  if (row.meterFromMs !== null) {
    // a run that ended earlier (a crash seen at the next check) is billed up to its end only
    const until = opts.billUntilMs !== undefined ? Math.max(row.meterFromMs, Math.min(nowMs, opts.billUntilMs)) : nowMs;
    const m = await meterTx(tx, row, until);
    Object.assign(patch, m);
    meterFromMs = m.meterFromMs ?? row.meterFromMs;
  }
  const metered = (extra.billingMode ?? row.billingMode) !== 'monthly';
  if (metered && isBilled(to)) patch.meterFromMs = meterFromMs ?? nowMs;
  else patch.meterFromMs = null;
  if (to === 'exited' && row.spotStatus === 'reclaiming') patch.spotStatus = 'terminated';
  // where its ports answered holds only while it runs (the reconciler records it on the way in)
  if (to !== 'running' && !('portEndpoints' in extra) && row.portEndpoints.length) patch.portEndpoints = [];
  const next = { ...row, ...patch } as q.InstanceRow;
  if (!('nextReconcileAtMs' in extra)) patch.nextReconcileAtMs = nextCheckAt(c, next, to, nowMs);
  await q.updateInstance(tx, row.id, patch);
  if (to !== row.status) {
    await announceInstanceState(c.ctx, tx, next, row.status, nowMs);
    await logStatusTx(tx, next, row.status, nowMs);
  }
  // Stopped, removed, or no longer metered: what was held for its first hour goes back.
  if (RELEASED_STATUSES.includes(to) || !metered) {
    await setHoldTx(tx, { ownerId: row.id, payer: payerOf(row) }, 0n, nowMs);
  }
  return { ...next, nextReconcileAtMs: patch.nextReconcileAtMs ?? null };
}
