// The serverless runtime's control loop: one pass visits every endpoint, moves each worker
// through its states on the driver, probes health, bills worker-seconds, stops an endpoint
// whose payer ran out, carries out the autoscaler's decisions (autoscaler.ts) and keeps the
// endpoint's state and log. Runs as the recurring singleton job `serverless.reconcile` (one
// replica at a time). Rules in ./README.md.
import type { Compute } from '../compute/compute.ts';
import { pullAuthOf } from '../compute/compute.ts';
import { inTransaction } from '../changes.ts';
import { setHoldTx, holdOf } from '../spend/holds.ts';
import { scopeBaseMicro } from '../spend/base.ts';
import type { BudgetScope } from '../spend/scopes.ts';
import { costMicro } from '../compute/metering.ts';
import { freeGpusTx } from '../compute/catalogue.ts';
import { insufficient } from '../compute/errors.ts';
import { AppError } from '../../lib/errors.ts';
import { newDnsId } from '../../lib/ids.ts';
import type { WorkloadSpec } from '../../drivers/types.ts';
import type { Tx } from '../../store/db.ts';
import * as cq from '../../store/compute.ts';
import * as q from '../../store/serverless-workers.ts';
import type { EndpointRow, WorkerRow } from '../../store/serverless-workers.ts';
import { decide } from './autoscaler.ts';
import type { WorkerLoad } from './load.ts';
import { METRICS_RETENTION_MS, type EndpointMetrics } from './metrics.ts';
import { pruneEndpointMetrics } from '../../store/serverless-metrics.ts';
import { meterWorkerTx, payerOfEndpoint, workerUnits } from './metering.ts';
import { announceEndpointState } from './webhooks.ts';

export interface RuntimeOptions {
  /** seconds of a new worker's GPU time admission sets aside (config.serverless.holdSeconds) */
  holdSeconds: number;
  /** how often a running worker's time is posted to the ledger (and the payer's room checked) */
  meterIntervalMs?: number;
  /** health probe over HTTP; true when the path answered 2xx/3xx within the timeout */
  probe?: (address: string, path: string, timeoutMs: number) => Promise<boolean>;
  onError?: (endpointId: string, err: unknown) => void;
  /** where each pass's look at an endpoint is counted (its minute's workers and queue) */
  metrics?: EndpointMetrics;
}

/** How long an ended worker's row (and its log) is kept for the endpoint view. */
const KEEP_ENDED_MS = 3_600_000;
/** Workers that failed before ever serving, in a row, after which the endpoint is failed. */
const BOOT_FAILURES_TO_FAIL = 3;
const BOOTING = new Set(['pending', 'creating', 'pulling', 'starting']);

/** Why an endpoint was stopped when the limit of `scope` ran out. */
const RUN_OUT: Record<BudgetScope['kind'], { error: string; message: string }> = {
  team: { error: 'balance_not_enough', message: 'scaled to 0 because the account balance ran out; top up, then update the endpoint to start it again' },
  member: { error: 'member_budget_exceeded', message: "scaled to 0 because the creator's member budget ran out; raise it, then update the endpoint" },
  key: { error: 'key_budget_exceeded', message: "scaled to 0 because the creating API key's budget ran out; raise it, then update the endpoint" },
};

async function httpProbe(address: string, path: string, timeoutMs: number): Promise<boolean> {
  try {
    const res = await fetch(`http://${address}${path}`, { signal: AbortSignal.timeout(timeoutMs), redirect: 'manual' });
    await res.body?.cancel();
    return res.status >= 200 && res.status < 400;
  } catch {
    return false;
  }
}

export class ServerlessRuntime {
  private readonly c: Compute;
  private readonly load: WorkerLoad;
  private readonly holdSeconds: number;
  private readonly meterIntervalMs: number;
  private readonly probe: (address: string, path: string, timeoutMs: number) => Promise<boolean>;
  private readonly onError: ((endpointId: string, err: unknown) => void) | undefined;
  private readonly metrics: EndpointMetrics | undefined;
  /** when each worker was last probed (this replica; a new one probes at once) */
  private readonly probedAt = new Map<string, number>();
  /** the last refusal to add a worker, per endpoint (this replica), so the log says it once */
  private readonly lastRefusal = new Map<string, string>();
  private lastPruneMs = 0;

  constructor(c: Compute, load: WorkerLoad, opts: RuntimeOptions) {
    this.c = c;
    this.load = load;
    this.holdSeconds = opts.holdSeconds;
    this.meterIntervalMs = opts.meterIntervalMs ?? 60_000;
    this.probe = opts.probe ?? httpProbe;
    this.onError = opts.onError;
    this.metrics = opts.metrics;
  }

  private now(): number {
    return this.c.ctx.clock.nowMs();
  }

  /** One pass over every endpoint. */
  async reconcileAll(): Promise<void> {
    for (const ep of await q.listAllEndpoints(this.c.ctx.db)) {
      try {
        await this.reconcileEndpoint(ep.id);
      } catch (err) {
        this.onError?.(ep.id, err);
      }
    }
    if (this.now() - this.lastPruneMs > 60_000) {
      this.lastPruneMs = this.now();
      await q.pruneEndedWorkers(this.c.ctx.db, this.now() - KEEP_ENDED_MS);
      await pruneEndpointMetrics(this.c.ctx.db, this.now() - METRICS_RETENTION_MS);
    }
  }

  async reconcileEndpoint(id: string): Promise<void> {
    let ep = await q.findEndpointRow(this.c.ctx.db, id);
    if (!ep) return;
    const log: string[] = [];
    let routableChanged = false;
    for (const w of await q.listLiveWorkers(this.c.ctx.db, ep.id)) {
      const changed = await this.advance(ep, w, log);
      routableChanged ||= changed;
    }
    let workers = await q.listLiveWorkers(this.c.ctx.db, ep.id);
    ep = await this.checkRoom(ep, workers, log);
    const now = this.now();
    const activity = await this.load.activity(workers.map((w) => w.id), now);
    const queue = await this.load.queue(ep.id, now);
    const cfg = ep.spec.workerConfig;
    const d = decide({
      nowMs: now, endpointState: ep.state, specVersion: ep.specVersion, minNum: cfg.minNum, maxNum: cfg.maxNum,
      freeTimeout: cfg.freeTimeout, maxConcurrent: cfg.maxConcurrent, policy: ep.spec.policy,
      workers: workers.map((w) => ({
        id: w.id, state: w.state, specVersion: w.specVersion, healthy: w.healthy, draining: w.draining, stateSinceMs: w.stateSinceMs,
        inflight: activity.get(w.id)?.inflight ?? 0, lastBusyAtMs: activity.get(w.id)?.lastBusyAtMs ?? 0,
      })),
      waiting: queue.waiting, oldestWaitingSinceMs: queue.oldestSinceMs,
    });
    log.push(...d.reasons);
    for (const wid of d.drain) {
      await q.updateWorker(this.c.ctx.db, wid, { draining: true });
      routableChanged = true;
    }
    for (const wid of d.stop) {
      const w = workers.find((x) => x.id === wid);
      if (w) await this.stopWorker(ep, w, ep.state === 'terminating' ? 'terminating' : 'stopping', log);
      routableChanged = true;
    }
    let refused: AppError | undefined;
    for (let i = 0; i < d.create && !refused; i++) {
      refused = await this.addWorker(ep);
      // said once while it lasts: a refusal repeats every pass until money or GPUs come back
      if (refused && this.lastRefusal.get(ep.id) !== refused.message) log.push(`scale out refused: ${refused.message}`);
    }
    if (refused) this.lastRefusal.set(ep.id, refused.message);
    else if (d.create > 0) this.lastRefusal.delete(ep.id);
    if (ep.desiredWorkers !== d.desired) {
      await inTransaction(this.c.ctx, async (tx) => {
        if (await this.unchangedTx(tx, ep)) await q.updateEndpointRow(tx, ep.id, { desiredWorkers: d.desired });
      });
    }
    workers = await q.listLiveWorkers(this.c.ctx.db, ep.id);
    if (await this.createAdded(ep, workers, log)) workers = await q.listLiveWorkers(this.c.ctx.db, ep.id);
    this.sample(ep, workers, d.desired, queue.waiting);
    await this.settleEndpoint(ep, workers, refused, log);
    if (log.length) {
      await q.appendLog(this.c.ctx.db, log.map((line) => ({ endpointId: ep.id, workerId: null, atMs: now, line })));
    }
    if (routableChanged) this.c.ctx.changes.publish({ type: 'endpoint.workers.changed', teamId: ep.teamId, endpointId: ep.id });
  }

  /**
   * The workers this pass added (still `pending`: the ones of earlier passes were advanced at
   * its start) are asked of the driver now rather than at the next pass: a cold start waits
   * one reconcile interval less (bench/serverless-docker.ts). A driver that refuses leaves the
   * worker pending for the next pass, as before. True when one was.
   */
  private async createAdded(ep: EndpointRow, workers: WorkerRow[], log: string[]): Promise<boolean> {
    let any = false;
    for (const w of workers.filter((x) => x.state === 'pending')) {
      try {
        await this.advance(ep, w, log);
        any = true;
      } catch (err) {
        this.onError?.(ep.id, err);
      }
    }
    return any;
  }

  /**
   * The pass's look at the endpoint, for its metrics. An endpoint with nothing to show (no
   * worker, none wanted, nothing waiting: scaled to zero, stopped) is not counted, so idle
   * endpoints add no rows; its minutes read as zeros.
   */
  private sample(ep: EndpointRow, workers: WorkerRow[], desired: number, waiting: number): void {
    if (!this.metrics || ep.state === 'terminating') return;
    const running = workers.filter((w) => w.state === 'running').length;
    const starting = workers.filter((w) => BOOTING.has(w.state)).length;
    if (!running && !starting && !desired && !waiting) return;
    this.metrics.sample(ep.id, { waiting, running, starting, desired });
  }

  // ---- one worker ----
  /** Move one worker a step. True when whether it takes traffic changed. */
  private async advance(ep: EndpointRow, w: WorkerRow, log: string[]): Promise<boolean> {
    const driver = this.c.driver;
    const now = this.now();
    if (w.state === 'pending') {
      await driver.create(await this.spec(ep, w));
      await this.move(w, { state: 'creating' });
      return false;
    }
    if (w.state === 'stopping' || w.state === 'terminating') {
      const obs = await driver.describe(w.id);
      if (obs.phase === 'absent' || obs.phase === 'stopped') {
        await this.move(w, { state: w.state === 'terminating' ? 'exited' : 'stopped', address: '' });
        this.probedAt.delete(w.id);
      } else if (obs.phase !== 'deleting') {
        await driver.delete(w.id);
      }
      return false;
    }
    const obs = await driver.describe(w.id);
    if (obs.phase === 'absent') {
      // The driver lost it (a restart of Gantry or of the cluster): a booting worker is made
      // again; a serving one is replaced.
      if (BOOTING.has(w.state)) {
        await driver.create(await this.spec(ep, w));
        return false;
      }
      await this.fail(ep, w, 'lost', 'the workload disappeared from the cluster', log);
      return true;
    }
    if (obs.phase === 'failed' || obs.phase === 'stopped' || obs.phase === 'stopping' || obs.phase === 'deleting') {
      const booting = BOOTING.has(w.state);
      const why = obs.message ?? (obs.phase === 'failed' ? `the workload failed (${obs.reason ?? 'unknown'})` : 'the workload stopped by itself');
      await this.fail(ep, w, booting ? (obs.reason === 'image_pull_failed' ? 'image_pull_failed' : 'boot_failed') : 'crashed', why, log, obs.endedAtMs);
      return !booting;
    }
    if (obs.phase === 'creating' || obs.phase === 'pulling') {
      if (w.state !== obs.phase) await this.move(w, { state: obs.phase });
      return false;
    }
    // starting or running on the driver: the container runs, GPU time is billed from here
    if (BOOTING.has(w.state) && w.state !== 'starting') {
      await this.move(w, { state: 'starting', meterFromMs: now });
      w = { ...w, state: 'starting', stateSinceMs: now, meterFromMs: now };
    }
    if (w.meterFromMs !== null && now - w.meterFromMs >= this.meterIntervalMs) await this.meter(ep, w.id, now);
    if (obs.phase !== 'running') return false;
    const address = await driver.address(w.id);
    if (!address) return false;
    if (address !== w.address) await q.updateWorker(this.c.ctx.db, w.id, { address });
    const h = ep.spec.healthy;
    if (w.state === 'starting' && now - w.stateSinceMs < h.initialDelay * 1000) return false;
    const last = this.probedAt.get(w.id);
    if (last !== undefined && now - last < h.period * 1000) return false;
    this.probedAt.set(w.id, now);
    const ok = await this.probe(address, h.path, Math.max(1, h.timeout) * 1000);
    if (ok) {
      const okInRow = w.okInRow + 1;
      const becomesHealthy = !w.healthy && okInRow >= Math.max(1, h.successThreshold);
      if (w.state === 'starting' && becomesHealthy) {
        await this.move(w, { state: 'running', healthy: true, okInRow, failInRow: 0 });
        log.push(`worker ${w.id} is running and healthy (${address})`);
        return true;
      }
      await q.updateWorker(this.c.ctx.db, w.id, { okInRow, failInRow: 0, ...(becomesHealthy ? { healthy: true } : {}) });
      if (becomesHealthy) log.push(`worker ${w.id} is healthy again`);
      return becomesHealthy;
    }
    const failInRow = w.failInRow + 1;
    const threshold = Math.max(1, h.failureThreshold);
    if (w.state === 'running' && failInRow >= threshold) {
      await this.fail(ep, w, 'unhealthy', `${failInRow} health checks of ${h.path} failed in a row (failureThreshold ${threshold}): replaced`, log);
      return true;
    }
    if (w.state === 'starting' && now - w.stateSinceMs > this.startupLimitMs(ep)) {
      await this.fail(ep, w, 'boot_failed', `no successful health check of ${h.path} within ${Math.round(this.startupLimitMs(ep) / 1000)} s of starting`, log);
      return false;
    }
    await q.updateWorker(this.c.ctx.db, w.id, { failInRow, okInRow: 0 });
    return false;
  }

  /** How long a started worker may take to pass its first health check. */
  private startupLimitMs(ep: EndpointRow): number {
    const h = ep.spec.healthy;
    return (h.initialDelay + Math.max(1, h.period) * (Math.max(1, h.failureThreshold) + Math.max(1, h.successThreshold)) + 60) * 1000;
  }

  private async move(w: WorkerRow, patch: Partial<q.WorkerInsert>): Promise<void> {
    const now = this.now();
    await q.updateWorker(this.c.ctx.db, w.id, { ...patch, ...(patch.state && patch.state !== w.state ? { stateSinceMs: now } : {}) });
  }

  /** Bill what the worker ran so far. */
  private async meter(ep: EndpointRow, workerId: string, untilMs: number): Promise<void> {
    await inTransaction(this.c.ctx, async (tx) => {
      const row = await q.lockWorker(tx, workerId);
      if (!row || row.meterFromMs === null) return;
      const m = await meterWorkerTx(tx, ep, row, untilMs);
      if (Object.keys(m).length) await q.updateWorker(tx, workerId, m);
    });
  }

  /** The worker ends: billed up to `untilMs`, its hold given back, the driver told to remove it. */
  private async end(ep: EndpointRow, w: WorkerRow, patch: Partial<q.WorkerInsert>, untilMs?: number): Promise<void> {
    const now = this.now();
    await inTransaction(this.c.ctx, async (tx) => {
      const row = await q.lockWorker(tx, w.id);
      if (!row) return;
      const m = row.meterFromMs !== null ? await meterWorkerTx(tx, ep, row, Math.min(now, untilMs ?? now)) : {};
      await q.updateWorker(tx, w.id, {
        ...m, ...patch, meterFromMs: null, healthy: false, draining: false,
        ...(patch.state && patch.state !== row.state ? { stateSinceMs: now } : {}),
      });
      await setHoldTx(tx, { ownerId: w.id, payer: payerOfEndpoint(ep) }, 0n, now);
    });
    await this.c.driver.delete(w.id);
  }

  private async fail(ep: EndpointRow, w: WorkerRow, error: string, message: string, log: string[], untilMs?: number): Promise<void> {
    await this.end(ep, w, { state: 'failed', stateError: error, stateMessage: message, address: '' }, untilMs);
    this.probedAt.delete(w.id);
    log.push(`worker ${w.id} failed (${error}): ${message}`);
  }

  private async stopWorker(ep: EndpointRow, w: WorkerRow, state: 'stopping' | 'terminating', log: string[]): Promise<void> {
    await this.end(ep, w, { state, stateMessage: state === 'terminating' ? 'the endpoint is being deleted' : w.draining ? 'drained' : 'stopped' });
    log.push(`worker ${w.id} ${state === 'terminating' ? 'terminating' : 'stopping'}`);
  }

  /** Drained workers with nothing in flight stop (called from settleEndpoint). */
  private async stopDrained(ep: EndpointRow, workers: WorkerRow[], log: string[]): Promise<boolean> {
    const draining = workers.filter((w) => w.draining);
    if (!draining.length) return false;
    const activity = await this.load.activity(draining.map((w) => w.id), this.now());
    let any = false;
    for (const w of draining) {
      if ((activity.get(w.id)?.inflight ?? 0) > 0) continue;
      await this.stopWorker(ep, w, 'stopping', log);
      any = true;
    }
    return any;
  }

  /** A new worker, through the one admission: its first holdSeconds of GPU time set aside. */
  private async addWorker(ep: EndpointRow): Promise<AppError | undefined> {
    const now = this.now();
    const id = newDnsId('worker', now);
    const payer = payerOfEndpoint(ep);
    const gpuNum = ep.spec.workerConfig.gpuNum;
    const hold = costMicro(this.holdSeconds, workerUnits(gpuNum), ep.priceUnits);
    const what = `a worker of endpoint ${ep.appName} (${gpuNum} × ${ep.productName}, ${this.holdSeconds} s)`;
    try {
      await this.c.spend.withReservation(payer, hold, what, () => inTransaction(this.c.ctx, async (tx) => {
        // a worker takes its GPUs from the cluster's inventory, as an instance does
        // (a CPU worker takes one unit of the product's inventory, as it is given and billed one)
        const free = await freeGpusTx(tx, ep.spec.productId, ep.spec.clusterId);
        if (free < workerUnits(gpuNum)) {
          throw insufficient(`not enough free ${ep.productName} GPUs in cluster ${ep.spec.clusterId} for a worker of endpoint ${ep.appName} (${workerUnits(gpuNum)} needed, ${Math.max(0, free)} free)`,
            { productId: ep.spec.productId, clusterId: ep.spec.clusterId, gpuNum });
        }
        await q.insertWorker(tx, {
          id, endpointId: ep.id, teamId: ep.teamId, specVersion: ep.specVersion, state: 'pending', stateSinceMs: now, createdAt: new Date(now),
        });
        await setHoldTx(tx, { ownerId: id, payer }, hold, now);
      }));
      return undefined;
    } catch (e) {
      if (e instanceof AppError && (e.reason === 'NOT_ENOUGH_BALANCE' || e.reason === 'BUDGET_EXCEEDED' || e.reason === 'INSUFFICIENT_RESOURCE')) return e;
      throw e;
    }
  }

  /**
   * After this pass's charges: when the tightest of the payer's balance, member budget and
   * key budget has nothing left (counting back what this endpoint's own workers hold), the
   * endpoint is stopped with the reason and its workers stop in the same pass.
   */
  private async checkRoom(ep: EndpointRow, workers: WorkerRow[], log: string[]): Promise<EndpointRow> {
    if (ep.state === 'stopped' || ep.state === 'terminating' || ep.state === 'failed') return ep;
    if (!workers.some((w) => w.meterFromMs !== null)) return ep;
    const payer = payerOfEndpoint(ep);
    const scopes = await this.c.spend.scopesOf(payer);
    let own = 0n;
    for (const w of workers) own += await holdOf(this.c.ctx.db, w.id);
    const now = this.now();
    for (const scope of scopes) {
      const left = await scopeBaseMicro(this.c.ctx.db, ep.teamId, scope, now) - await this.c.spend.reservedMicro(scope) + own;
      if (left > 0n) continue;
      const why = RUN_OUT[scope.kind];
      const stopped = await inTransaction(this.c.ctx, async (tx) => {
        if (!(await this.unchangedTx(tx, ep))) return false; // deleted or updated meanwhile: the next pass looks again
        await q.updateEndpointRow(tx, ep.id, { state: 'stopped', stateError: why.error, stateMessage: why.message, stateSinceMs: now, desiredWorkers: 0, updatedAt: new Date(now) });
        await announceEndpointState(this.c.ctx, tx, { endpoint: ep, from: ep.state, to: 'stopped', error: why.error, message: why.message, nowMs: now });
        return true;
      });
      if (!stopped) return ep;
      log.push(`endpoint stopped: ${why.message}`);
      return { ...ep, state: 'stopped', stateError: why.error, stateMessage: why.message };
    }
    return ep;
  }

  /** The endpoint's state from its workers; a deleted endpoint goes once its workers have. */
  private async settleEndpoint(ep: EndpointRow, workers: WorkerRow[], refused: AppError | undefined, log: string[]): Promise<void> {
    if (await this.stopDrained(ep, workers, log)) workers = await q.listLiveWorkers(this.c.ctx.db, ep.id);
    const now = this.now();
    if (ep.state === 'terminating') {
      if (!workers.length) await q.deleteEndpointRows(this.c.ctx.db, ep.id);
      return;
    }
    if (ep.state === 'stopped' || ep.state === 'failed') return;
    let next: { state: string; error: string; message: string };
    const serving = workers.some((w) => w.state === 'running' && w.healthy && !w.draining);
    if (serving) next = { state: 'serving', error: '', message: '' };
    else if (refused?.reason === 'INSUFFICIENT_RESOURCE' && !workers.length) {
      // capacity comes back by itself (an instance or another endpoint lets GPUs go): wait, do not stop
      next = { state: 'initializing', error: 'insufficient_resource', message: `waiting for free GPUs: ${refused.message}` };
    } else if (refused && !workers.length) {
      next = { state: 'stopped', error: refused.reason === 'NOT_ENOUGH_BALANCE' ? 'balance_not_enough' : 'budget_exceeded', message: `no worker could be started: ${refused.message}` };
    } else {
      const ended = await q.listEndedWorkers(this.c.ctx.db, ep.id, BOOT_FAILURES_TO_FAIL);
      const bootFailures = ended.filter((w) => w.state === 'failed' && (w.stateError === 'boot_failed' || w.stateError === 'image_pull_failed'));
      if (!workers.some((w) => w.state === 'running') && ended.length === BOOT_FAILURES_TO_FAIL && bootFailures.length === BOOT_FAILURES_TO_FAIL) {
        next = { state: 'failed', error: bootFailures[0]!.stateError, message: `${BOOT_FAILURES_TO_FAIL} workers in a row failed to start; the last: ${bootFailures[0]!.stateMessage}` };
      } else if (!workers.length && ep.spec.workerConfig.minNum === 0) {
        next = { state: 'serving', error: '', message: 'scaled to zero: the next request starts a worker' };
      } else {
        next = { state: 'initializing', error: '', message: '' };
      }
    }
    if (next.state !== ep.state || next.error !== ep.stateError || next.message !== ep.stateMessage) {
      const written = await inTransaction(this.c.ctx, async (tx) => {
        // a delete, an update or a stop that committed during this pass is not undone by it
        if (!(await this.unchangedTx(tx, ep))) return false;
        await q.updateEndpointRow(tx, ep.id, {
          state: next.state, stateError: next.error, stateMessage: next.message, updatedAt: new Date(now),
          ...(next.state !== ep.state ? { stateSinceMs: now } : {}), ...(next.state === 'failed' || next.state === 'stopped' ? { desiredWorkers: 0 } : {}),
        });
        await announceEndpointState(this.c.ctx, tx, { endpoint: ep, from: ep.state, to: next.state, error: next.error, message: next.message, nowMs: now });
        return true;
      });
      if (written && next.state !== ep.state) log.push(`endpoint ${ep.state} → ${next.state}${next.message ? `: ${next.message}` : ''}`);
    }
  }

  /**
   * Whether the endpoint is still as this pass read it (its state and spec version), its row
   * locked until `tx` ends. The pass decides from the row it read at its start; a delete, an
   * update or another change that committed since then wins, and the pass writes nothing over
   * it (before, a delete that came while a worker turned healthy was undone: the pass wrote
   * `serving` over `terminating`, and the endpoint lived on, billed). The next pass starts
   * from what the row is then.
   */
  private async unchangedTx(tx: Tx, ep: EndpointRow): Promise<boolean> {
    const row = await q.lockEndpoint(tx, ep.id);
    return row !== undefined && row.state === ep.state && row.specVersion === ep.specVersion;
  }

  /** What the driver is asked to run for a worker of `ep`. */
  private async spec(ep: EndpointRow, w: WorkerRow): Promise<WorkloadSpec> {
    const s = ep.spec;
    const product = await cq.findProduct(this.c.ctx.db, s.productId);
    const imagePullAuth = await pullAuthOf(this.c, ep.teamId, s.image.image, s.image.authId);
    const gpuNum = s.workerConfig.gpuNum;
    // the product's CPUs and memory per unit (a CPU worker, gpuNum 0, gets one unit's), as an instance's
    const units = workerUnits(gpuNum);
    return {
      id: w.id, teamId: ep.teamId, clusterId: s.clusterId, image: s.image.image, imagePullAuth, command: s.image.command, entrypoint: '',
      envs: s.envs, ports: [{ port: s.port, type: 'http' }], gpuNum, cpuNum: (product?.cpuPerGpu ?? 1) * units,
      memoryGb: (product?.memoryPerGpuGb ?? 1) * units, rootfsGb: s.rootfsSize, nodeSelector: product?.nodeSelector ?? {},
      volumes: s.volumeMounts.map((v) => ({ type: v.type, size: String(v.size), id: v.id, mountPath: v.mountPath })),
      worker: { endpointId: ep.id, health: s.healthy },
    };
  }
}
