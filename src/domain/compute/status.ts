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
import { deferChange } from '../changes.ts';

/** What the ports proxy routes a call by (gateway/ports: whose it is, whether it runs, its ports, where they answer). */
const ROUTING_FIELDS = ['teamId', 'status', 'ports', 'portEndpoints'] as const satisfies readonly (keyof q.InstanceRow)[];

/**
 * Write `patch` to the instance's row inside `tx`; when it changes what the ports proxy routes
 * by, `instance.changed` is announced once the transaction commits (the proxy's cache of it
 * drops the instance). Every write of an instance row in a transaction goes through here.
 */
export async function writeInstanceTx(tx: Tx, row: q.InstanceRow, patch: Partial<q.InstanceInsert>): Promise<void> {
  await q.updateInstance(tx, row.id, patch);
  const routed = ROUTING_FIELDS.some((f) => f in patch && JSON.stringify(patch[f]) !== JSON.stringify(row[f]));
  if (routed) deferChange({ type: 'instance.changed', teamId: row.teamId, instanceId: row.id });
}

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
  await writeInstanceTx(tx, row, patch);
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
