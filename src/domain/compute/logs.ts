// An instance's log (the get view's connectComponentLog.url): Gantry's own lines, one per
// status change, written in the transaction that makes it (moveTx, and the create), and the
// workload's output, read from the driver by the reconciler before each pass over the
// instance and, while someone follows the log, about once a second. Bounds (compat-decisions):
// the newest MAX_LINES_PER_INSTANCE lines of an instance, and nothing longer than
// KEEP_AFTER_REMOVAL_MS after it was removed.
import * as q from '../../store/instance-logs.ts';
import * as cq from '../../store/compute.ts';
import type { Tx } from '../../store/db.ts';
import { FAILURE_REASONS, type FailureReason } from '../../drivers/types.ts';
import { deferChange, inTransaction } from '../changes.ts';
import type { Compute } from './compute.ts';
import type { InstanceStatus } from './states.ts';

export const MAX_LINES_PER_INSTANCE = 10_000;
export const KEEP_AFTER_REMOVAL_MS = 7 * 86_400_000;
/** workload lines read from the driver at once (a long log comes over several reads) */
const COLLECT_LIMIT = 1000;
/** how often the reconciler forgets the lines of instances removed long ago */
const PRUNE_EVERY_MS = 3_600_000;
/** Gantry's own lines start with this, so they read apart from the workload's */
const GANTRY = '[gantry]';

/** States without a workload to read output from. */
const NO_WORKLOAD: readonly InstanceStatus[] = ['toCreate', 'exited', 'removed'];

async function writeTx(tx: Tx, row: Pick<cq.InstanceRow, 'id' | 'teamId'>, source: 'gantry' | 'workload', lines: { atMs: number; line: string }[]): Promise<void> {
  if (!lines.length) return;
  await q.appendInstanceLog(tx, lines.map((l) => ({ instanceId: row.id, teamId: row.teamId, source, atMs: l.atMs, line: l.line })));
  deferChange({ type: 'instance.log', teamId: row.teamId, instanceId: row.id });
}

export function logCreatedTx(tx: Tx, row: cq.InstanceInsert, nowMs: number): Promise<void> {
  const what = `${row.gpuNum} × ${row.productName} in ${row.clusterId}, image ${row.imageUrl}, ${row.billingMode}`;
  return writeTx(tx, row, 'gantry', [{ atMs: nowMs, line: `${GANTRY} created (${what})` }]);
}

/** What a status means, for the line that says the instance entered it. */
function meaning(after: cq.InstanceRow, to: InstanceStatus): string {
  const error = after.statusErrorState ? `${after.statusErrorState}: ${after.statusErrorMessage}` : '';
  switch (to) {
    case 'toCreate': return 'waiting to be created';
    case 'creating': return `scheduling the workload (${after.gpuNum} × ${after.productName}) in cluster ${after.clusterId}`;
    case 'pulling': return `pulling image ${after.imageUrl}`;
    case 'running': return `running (image ${after.imageUrl})`;
    case 'toStart': return 'start requested';
    case 'starting': return 'starting the workload';
    case 'toStop': return error ? `stop requested (${error})` : 'stop requested';
    case 'stopping': return 'stopping the workload';
    case 'exited':
      if (FAILURE_REASONS.includes(after.statusErrorState as FailureReason)) return `failed (${after.statusErrorState}): ${after.statusErrorMessage}`;
      return error ? `stopped (${error})` : 'stopped';
    case 'toRestart': return 'restart requested';
    case 'restarting': return 'restarting the workload';
    case 'toRemove': return 'delete requested';
    case 'removing': return 'removing the workload';
    case 'removed': return 'removed';
    case 'toReset': return `upgrade requested (image ${after.imageUrl})`;
    case 'resetting': return `recreating the workload with image ${after.imageUrl}`;
    case 'migrating': return `migrating to cluster ${after.clusterId}`;
    case 'freezing': return error ? `stopping (${error})` : 'stopping';
  }
}

/** The line of a status change (moveTx, in its transaction). */
export function logStatusTx(tx: Tx, after: cq.InstanceRow, from: string, nowMs: number): Promise<void> {
  const to = after.status as InstanceStatus;
  return writeTx(tx, after, 'gantry', [{ atMs: nowMs, line: `${GANTRY} ${from} → ${to}: ${meaning(after, to)}` }]);
}

/**
 * Store what the workload wrote since the last line stored. The driver is asked outside any
 * transaction; the lines are written under the instance's row lock, after reading again
 * where the log stands, so two readers at once (the reconciler, a follower, replicas) store
 * each line once. Returns how many lines were stored.
 */
export async function collectWorkloadLog(c: Compute, id: string): Promise<number> {
  const from = await q.lastWorkloadLineMs(c.ctx.db, id);
  const lines = await c.driver.logs(id, from, COLLECT_LIMIT);
  if (!lines.length) return 0;
  return inTransaction(c.ctx, async (tx) => {
    const row = await cq.lockInstance(tx, id);
    if (!row) return 0;
    const since = await q.lastWorkloadLineMs(tx, id);
    const fresh = lines.filter((l) => l.atMs > since);
    await writeTx(tx, row, 'workload', fresh);
    if (fresh.length) await q.trimInstanceLog(tx, id, MAX_LINES_PER_INSTANCE);
    return fresh.length;
  });
}

/** Whether the instance may have a workload writing output. */
export const hasWorkload = (status: string) => !NO_WORKLOAD.includes(status as InstanceStatus);

/** When each compute service last pruned (this process). */
const prunedAt = new WeakMap<Compute, number>();
/** Forget the lines of instances removed more than KEEP_AFTER_REMOVAL_MS ago (at most hourly). */
export async function pruneInstanceLogs(c: Compute): Promise<void> {
  const now = c.ctx.clock.nowMs();
  const last = prunedAt.get(c);
  if (last !== undefined && now >= last && now - last < PRUNE_EVERY_MS) return;
  prunedAt.set(c, now);
  await q.pruneRemovedInstanceLogs(c.ctx.db, now - KEEP_AFTER_REMOVAL_MS);
}
