// The reconciler: level-triggered, one instance at a time under a lease. It compares the
// instance's status with what the driver observes, issues the next idempotent driver call,
// and moves the status. Driver calls happen outside transactions; the move is applied only
// if no operation changed the instance meanwhile. Rules in ./README.md.
import * as q from '../../store/compute.ts';
import type { Observed } from '../../drivers/types.ts';
import type { DbOrTx } from '../../store/db.ts';
import { scopeBaseMicro } from '../spend/base.ts';
import { holdOf } from '../spend/holds.ts';
import type { BudgetScope } from '../spend/scopes.ts';
import { payerOf, workloadSpec, type Compute, type StatusError } from './compute.ts';
import { moveTx, nextCheckAt, writeInstanceTx } from './status.ts';
import { meterTx } from './metering.ts';
import { FREEZABLE_STATUSES, isBilled, METERED_MODES, WINDING_DOWN_STATUSES, type InstanceStatus } from './states.ts';
import { inTransaction } from '../changes.ts';
import { collectWorkloadLog, hasWorkload, pruneInstanceLogs } from './logs.ts';

interface Decision {
  to?: InstanceStatus;
  /** the workload's run ended at this time (bill no further) */
  endedAtMs?: number;
  error?: StatusError;
  extra?: Partial<q.InstanceInsert>;
}

const FAILURE_TEXT: Record<string, string> = {
  image_pull_failed: 'image pull failed',
  insufficient_resource: 'insufficient resources: no node can hold this instance',
  crashed: 'the container crashed',
  disk_limit_exceeded: 'stopped: disk limit exceeded',
  unknown: 'the workload failed',
};

function failed(o: Observed): Decision {
  const state = o.reason ?? 'unknown';
  return { to: 'exited', endedAtMs: o.endedAtMs, error: { state, message: o.message ? `${FAILURE_TEXT[state] ?? state}: ${o.message}` : FAILURE_TEXT[state] ?? state } };
}

/** A run that began after the status did (so not the workload before a restart or reset). */
function freshRun(o: Observed, row: q.InstanceRow): boolean {
  return o.phase === 'running' && (o.startedAtMs ?? 0) >= row.statusSinceMs;
}

/** Talk to the driver for one instance and decide where its status goes. */
async function drive(c: Compute, row: q.InstanceRow): Promise<Decision> {
  const s = row.status as InstanceStatus;
  if (s === 'exited' || s === 'removed') return {};
  return (await ask(c, row, s)) ?? follow(c, row, s, await c.driver.describe(row.id));
}

/** A state that asks the driver for something (`to…`): the call, and the state that waits for it; undefined for the others. */
async function ask(c: Compute, row: q.InstanceRow, s: InstanceStatus): Promise<Decision | undefined> {
  const d = c.driver;
  switch (s) {
    case 'toCreate':
      await d.create(await workloadSpec(c, row));
      return { to: 'creating' };
    case 'toStart':
      await d.start(await workloadSpec(c, row));
      return { to: 'starting' };
    case 'toStop':
      await d.stop(row.id);
      return { to: 'stopping' };
    case 'toRestart':
      await d.stop(row.id);
      return { to: 'restarting' };
    case 'toReset':
      await d.delete(row.id);
      return { to: 'resetting' };
    case 'toRemove':
      await d.delete(row.id);
      return { to: 'removing' };
    default:
      return undefined;
  }
}

/** A state that waits on the workload: where it goes from what the driver sees, asking again for what was lost. */
async function follow(c: Compute, row: q.InstanceRow, s: InstanceStatus, o: Observed): Promise<Decision> {
  const d = c.driver;
  const spec = () => workloadSpec(c, row);
  switch (s) {
    case 'creating':
    case 'pulling':
      if (o.phase === 'failed') return failed(o);
      if (o.phase === 'running') return { to: 'running' };
      if (o.phase === 'pulling') return { to: 'pulling' };
      if (o.phase === 'absent') await d.create(await spec()); // lost (e.g. the sim after a restart): create again
      if (o.phase === 'stopped') await d.start(await spec());
      return {};
    case 'starting':
      if (o.phase === 'failed') return failed(o);
      if (o.phase === 'running') return { to: 'running' };
      if (o.phase === 'stopped') await d.start(await spec());
      if (o.phase === 'absent') await d.create(await spec());
      return {};
    case 'restarting':
      if (o.phase === 'stopped' || o.phase === 'failed') await d.start(await spec());
      else if (o.phase === 'absent') await d.create(await spec());
      else if (freshRun(o, row)) return { to: 'running' };
      else if (o.phase === 'running') await d.stop(row.id);
      return {};
    case 'resetting':
    case 'migrating':
      if (o.phase === 'absent') await d.create(await spec());
      else if (freshRun(o, row)) return { to: 'running' };
      else if (o.phase === 'failed' && (o.reason === 'image_pull_failed' || o.reason === 'insufficient_resource')) return failed(o);
      else if (o.phase === 'running' || o.phase === 'stopped' || o.phase === 'failed') await d.delete(row.id);
      return {};
    case 'stopping':
    case 'freezing':
      if (o.phase === 'stopped' || o.phase === 'absent' || o.phase === 'failed') return { to: 'exited' };
      await d.stop(row.id);
      return {};
    case 'removing':
      if (o.phase === 'absent') return { to: 'removed' };
      await d.delete(row.id);
      return {};
    case 'running':
      return watchRunning(c, row, o);
  }
  return {};
}

/** A running instance: it ended by itself, or vanished (recreated), or its spot capacity is being reclaimed. */
async function watchRunning(c: Compute, row: q.InstanceRow, o: Observed): Promise<Decision> {
  if (o.phase === 'failed') return failed(o);
  if (o.phase === 'stopped') return { to: 'exited', endedAtMs: o.endedAtMs, error: { state: 'stopped', message: 'the workload stopped by itself' } };
  if (o.phase === 'absent') {
    // The workload is gone (node lost, or the sim after a restart): recreate it.
    await c.driver.create(await workloadSpec(c, row));
    return { to: 'creating' };
  }
  if (o.reclaimNotice && row.billingMode === 'spot' && row.spotStatus === 'running') {
    const reclaimS = Math.ceil((c.ctx.clock.nowMs() + c.timings.spotNoticeMs) / 1000);
    return { extra: { spotStatus: 'notified', spotReclaimTimeS: reclaimS } };
  }
  return {};
}

/** Where each port of a running workload answers, as the row keeps it; undefined when the driver could not say. */
async function portEndpointsOf(c: Compute, id: string): Promise<q.InstanceRow['portEndpoints'] | undefined> {
  try {
    return (await c.driver.ports(id)).map((p) => ({ port: p.port, endpoint: p.endpoint }));
  } catch {
    return undefined; // read again on the next pass; the status move does not wait for it
  }
}

function sameEndpoints(a: q.InstanceRow['portEndpoints'], b: q.InstanceRow['portEndpoints']): boolean {
  return a.length === b.length && a.every((x, i) => x.port === b[i]!.port && x.endpoint === b[i]!.endpoint);
}

/**
 * The instance runs (it moves to running, or a pass over a running one changed nothing):
 * record where its ports answer when that changed (a new run of a docker container gets new
 * host ports). The view reads the row, so no request waits for the engine.
 */
async function withEndpoints(c: Compute, row: q.InstanceRow, d: Decision): Promise<Decision> {
  const running = d.to === 'running' || (d.to === undefined && row.status === 'running');
  if (!running) return d;
  const eps = await portEndpointsOf(c, row.id);
  if (!eps || (d.to === undefined && sameEndpoints(eps, row.portEndpoints))) return d;
  return { ...d, extra: { ...d.extra, portEndpoints: eps } };
}

/** Rules that apply whatever the driver says: subscription expiry and spot reclaim time. */
function policy(row: q.InstanceRow, nowMs: number): Decision | undefined {
  if (WINDING_DOWN_STATUSES.includes(row.status as InstanceStatus)) return undefined;
  if (row.billingMode === 'monthly' && row.endTimeS > 0 && row.endTimeS * 1000 <= nowMs) {
    return { to: 'toStop', error: { state: 'subscription_expired', message: `the subscription ended at ${row.endTimeS}; renew to start it again` } };
  }
  if (row.billingMode === 'spot' && row.spotStatus === 'notified' && row.spotReclaimTimeS * 1000 <= nowMs) {
    return { to: 'toStop', error: { state: 'spot_reclaimed', message: 'the spot capacity was reclaimed by the provider' }, extra: { spotStatus: 'reclaiming' } };
  }
  return undefined;
}

/**
 * When `leftMicro` of spendable balance is used up by `gpuNum` GPUs at `priceUnits` per
 * GPU-hour (at least one second from now), or null when nothing is left or nothing is billed.
 */
export function runOutAtMs(leftMicro: bigint, gpuNum: number, priceUnits: bigint, nowMs: number): number | null {
  const microPerHour = BigInt(gpuNum) * priceUnits * 1_000_000n;
  if (leftMicro <= 0n || microPerHour <= 0n) return null;
  const ms = (leftMicro * 3_600_000n + microPerHour - 1n) / microPerHour; // ceil
  return nowMs + Math.max(1000, Number(ms > 86_400_000n ? 86_400_000n : ms));
}

/** What each scope an instance is charged to can still spend, with what the instance itself holds. */
interface Headroom {
  scope: BudgetScope;
  leftMicro: bigint;
}

/**
 * The tightest of the account balance, the member budget and the key budget for this
 * instance: each scope's base per the store, minus live reservations of other work, plus
 * the instance's own hold (money set aside for exactly this work).
 */
async function tightestHeadroom(db: DbOrTx, row: q.InstanceRow, scopes: BudgetScope[], reserved: bigint[], nowMs: number): Promise<Headroom> {
  const hold = await holdOf(db, row.id);
  let tightest: Headroom | undefined;
  for (const [i, scope] of scopes.entries()) {
    const leftMicro = await scopeBaseMicro(db, row.teamId, scope, nowMs) - reserved[i]! + hold;
    if (!tightest || leftMicro < tightest.leftMicro) tightest = { scope, leftMicro };
  }
  return tightest!;
}

/** Reconcile one leased instance. Returns true when its status changed. */
export async function reconcileOne(c: Compute, leased: q.InstanceRow, opts: { onLogError?: (err: unknown) => void } = {}): Promise<boolean> {
  // the workload's output first: its last words (a crash) come before the line of the move they cause
  if (hasWorkload(leased.status)) await collectWorkloadLog(c, leased.id).catch((err: unknown) => opts.onLogError?.(err));
  const decision = policy(leased, c.ctx.clock.nowMs()) ?? (await withEndpoints(c, leased, await drive(c, leased)));
  const scopes = await c.spend.scopesOf(payerOf(leased));
  const reserved = await Promise.all(scopes.map((s) => c.spend.reservedMicro(s)));
  let runOut: BudgetScope | undefined;
  const moved = await inTransaction(c.ctx, async (tx) => {
    const row = await q.lockInstance(tx, leased.id);
    if (!row) return false;
    const now = c.ctx.clock.nowMs();
    if (row.status !== leased.status) {
      // An operation changed it while we talked to the driver; its new status is due now.
      await writeInstanceTx(tx, row, { leaseUntilMs: 0 });
      return false;
    }
    const extra: Partial<q.InstanceInsert> = { ...decision.extra, leaseUntilMs: 0 };
    if (decision.error) Object.assign(extra, { statusErrorState: decision.error.state, statusErrorMessage: decision.error.message });
    let after: q.InstanceRow;
    let meterOnly: { m: Partial<q.InstanceInsert>; nextAt: number | null; transitional: boolean } | undefined;
    if (decision.to) {
      after = await moveTx(tx, c, row, decision.to, now, extra, { billUntilMs: decision.endedAtMs });
    } else {
      // No lifecycle change: bill the GPU time so far and look again later.
      const m = await meterTx(tx, row, now);
      after = { ...row, ...m, ...extra } as q.InstanceRow;
      const transitional = !['running', 'exited', 'removed'].includes(row.status);
      meterOnly = { m, transitional, nextAt: transitional ? now + c.timings.pollMs : nextCheckAt(c, after, row.status as InstanceStatus, now) };
    }
    // What the tightest limit can still spend, read once, after this pass's charge.
    const room = after.billingMode !== 'monthly' && isBilled(after.status) ? await tightestHeadroom(tx, after, scopes, reserved, now) : undefined;
    const left = room ? room.leftMicro : null;
    if (meterOnly) {
      let { nextAt } = meterOnly;
      if (left !== null && nextAt !== null && !meterOnly.transitional) {
        // Look again when what is left would run out at this instance's rate, not a whole
        // metering interval later: the overdraft stays within about a second of GPU time.
        const at = runOutAtMs(left, after.gpuNum, after.priceUnits, now);
        if (at !== null) nextAt = Math.min(nextAt, at);
      }
      await writeInstanceTx(tx, row, { ...meterOnly.m, ...extra, updatedAt: new Date(now), nextReconcileAtMs: nextAt });
    }
    if (room && room.leftMicro <= 0n) runOut = room.scope;
    return Boolean(decision.to);
  });
  if (runOut) await freezeScope(c, runOut);
  return moved;
}

/** Why an instance was stopped when the limit of `scope` ran out (statusError). */
const RUN_OUT: Record<BudgetScope['kind'], { state: string; message: string }> = {
  team: { state: 'balance_not_enough', message: 'stopped because the account balance ran out; top up and start it again' },
  member: { state: 'member_budget_exceeded', message: 'stopped because the member budget ran out; raise the budget and start it again' },
  key: { state: 'key_budget_exceeded', message: 'stopped because the API key budget ran out; raise the budget and start it again' },
};

/** A limit ran out: stop every metered instance charged to it (on demand and spot). */
export async function freezeScope(c: Compute, scope: BudgetScope): Promise<number> {
  const rows = await q.listInstancesChargedTo(c.ctx.db, scope, METERED_MODES, FREEZABLE_STATUSES);
  const why = RUN_OUT[scope.kind];
  let n = 0;
  for (const r of rows) {
    await inTransaction(c.ctx, async (tx) => {
      const row = await q.lockInstance(tx, r.id);
      if (!row || row.status !== r.status) return;
      await moveTx(tx, c, row, 'freezing', c.ctx.clock.nowMs(), { statusErrorState: why.state, statusErrorMessage: why.message });
      n++;
    });
  }
  return n;
}

/** How often the orphan sweep runs (at most; the first pass of a process runs it at once). */
export const ORPHAN_SWEEP_EVERY_MS = 60_000;
const sweptAt = new WeakMap<Compute, number>();

/**
 * Remove the workloads the driver manages that have no row (orphans): not an instance that
 * is not removed, not a serverless worker (in any state: the serverless runtime removes its
 * own). Safe against a workload made a moment ago: its row is committed before the driver's
 * create (instances: the create operation writes `toCreate`, the reconciler creates later;
 * workers: `pending`, then the runtime creates), and the rows are read after the driver's
 * listing, so a workload listed has a row to be read. Returns the ids it deleted.
 */
export async function sweepOrphans(c: Compute): Promise<string[]> {
  const now = c.ctx.clock.nowMs();
  const last = sweptAt.get(c);
  if (last !== undefined && now >= last && now - last < ORPHAN_SWEEP_EVERY_MS) return [];
  sweptAt.set(c, now);
  const listed = await c.driver.list(); // first: see above
  const owned = await q.workloadIdsWithRows(c.ctx.db, listed);
  const orphans = listed.filter((id) => !owned.has(id));
  for (const id of orphans) await c.driver.delete(id);
  return orphans;
}

/**
 * One pass: lease every due instance (in batches) and reconcile it. Safe to run on every
 * replica at once; tests call it after advancing the ManualClock.
 */
export async function reconcileDue(c: Compute, opts: {
  batch?: number; onError?: (id: string, err: unknown) => void; onLogError?: (id: string, err: unknown) => void;
  onOrphans?: (ids: string[]) => void; onSweepError?: (err: unknown) => void;
} = {}): Promise<number> {
  const batch = opts.batch ?? 50;
  let done = 0;
  await pruneInstanceLogs(c);
  // a driver that cannot list (an engine away) does not stop the pass: the next sweep tries again
  await sweepOrphans(c).then((ids) => ids.length && opts.onOrphans?.(ids), (err: unknown) => opts.onSweepError?.(err));
  // bounded: a pass ends even if moves keep making rows due at once
  for (let pass = 0; pass < 1000; pass++) {
    const now = c.ctx.clock.nowMs();
    const rows = await q.claimDueInstances(c.ctx.db, now, c.timings.leaseMs, batch);
    for (const row of rows) {
      try {
        await reconcileOne(c, row, { onLogError: (err) => opts.onLogError?.(row.id, err) });
      } catch (err) {
        opts.onError?.(row.id, err);
        // Back off, keep the status; the lease is released so another pass retries.
        await q.backOffInstance(c.ctx.db, row.id, now + c.timings.pollMs * 5);
      }
      done++;
    }
    if (rows.length < batch) return done;
  }
  return done;
}
