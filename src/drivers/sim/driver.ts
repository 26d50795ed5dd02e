// The simulated driver: every phase takes a configurable time on the injected clock, so
// tests advance time instead of sleeping. State lives in memory, like a cluster that
// restarts with the process: after a Gantry restart describe() answers `absent` and the
// reconciler re-issues the idempotent call (see domain/compute/README.md).
import type { Clock } from '../../lib/clock.ts';
import type { ComputeDriver, FailureReason, Observed, ObservedPhase, WorkloadLogLine, WorkloadPort, WorkloadSpec } from '../types.ts';
import { HEARTBEAT_MS, simRunLines, type SimRun } from './output.ts';
import { SimWorkerServer } from './worker.ts';

export interface SimTimings {
  createMs: number;
  pullMs: number;
  startMs: number;
  stopMs: number;
  deleteMs: number;
}

export const DEFAULT_SIM_TIMINGS: SimTimings = { createMs: 2000, pullMs: 8000, startMs: 3000, stopMs: 2000, deleteMs: 1500 };

/** Images whose reference contains one of these words fail the way it says. */
export const SIM_FAILURE_MARKERS: Record<string, FailureReason> = {
  'sim-fail-pull': 'image_pull_failed',
  'sim-no-capacity': 'insufficient_resource',
  'sim-crash': 'crashed',
};

interface SimWorkload {
  spec: WorkloadSpec;
  phase: ObservedPhase;
  sinceMs: number;
  startedAtMs?: number;
  reason?: FailureReason;
  message?: string;
  reclaimNotice?: boolean;
  /** where a timed phase leads */
  pending?: 'pulling' | 'starting' | 'running' | 'stopped' | 'absent';
  /** its last runs, newest last: what it wrote (output.ts) */
  runs: SimRun[];
  /** a serverless worker's HTTP server, while it runs */
  server?: SimWorkerServer | undefined;
  serverStarting?: Promise<void> | undefined;
}

/** A serverless worker whose image reference ends in `/fail` (or `/fail:tag`) never boots. */
const NEVER_BOOTS = /\/fail(:[^/]*)?$/;

export interface SimOptions {
  timings?: Partial<SimTimings>;
  /** GANTRY_SIM_TIME_SCALE: 100 makes every delay 100 times shorter */
  timeScale?: number;
  /** ms a workload of a `sim-crash` image runs before it crashes */
  crashAfterMs?: number;
  /** the simulated LLM of serverless workers */
  workerLlm?: { ttftMs: number; tokensPerSecond: number };
}

export class SimDriver implements ComputeDriver {
  private readonly clock: Clock;
  private readonly t: SimTimings;
  private readonly crashAfterMs: number;
  private readonly heartbeatMs: number;
  private readonly workloads = new Map<string, SimWorkload>();
  private readonly failNext = new Map<string, FailureReason>();
  /** `id:port` → a real address (servePort) */
  private readonly served = new Map<string, string>();
  private readonly workerLlm: { ttftMs: number; tokensPerSecond: number } | undefined;
  /** after close(): no worker server is started again */
  private closed = false;

  constructor(clock: Clock, opts: SimOptions = {}) {
    this.clock = clock;
    const scale = opts.timeScale && opts.timeScale > 0 ? opts.timeScale : 1;
    const base = { ...DEFAULT_SIM_TIMINGS, ...opts.timings };
    this.t = {
      createMs: base.createMs / scale, pullMs: base.pullMs / scale, startMs: base.startMs / scale,
      stopMs: base.stopMs / scale, deleteMs: base.deleteMs / scale,
    };
    this.crashAfterMs = (opts.crashAfterMs ?? 60_000) / scale;
    this.heartbeatMs = HEARTBEAT_MS / scale;
    this.workerLlm = opts.workerLlm;
  }

  get timings(): SimTimings {
    return { ...this.t };
  }

  // ---- failure injection (tests, demos) ----
  /** The next create of this instance fails with `reason` (pull failure, no capacity). */
  injectFailure(id: string, reason: FailureReason): void {
    this.failNext.set(id, reason);
  }
  /** A running workload dies now. */
  crash(id: string, message = 'container exited with code 137 (killed)'): void {
    const w = this.workloads.get(id);
    if (!w) return;
    this.settle(w);
    if (w.phase !== 'running') return;
    this.endRun(w, this.now(), `fatal: ${message}`);
    this.to(w, 'failed', undefined, 'crashed', message);
    void this.closeServer(w);
  }
  /** The provider announces it takes a spot workload's capacity back. */
  reclaim(id: string): void {
    const w = this.workloads.get(id);
    if (w) w.reclaimNotice = true;
  }

  /**
   * An instance's port answers at a real address from now on (a test's or a demo's own HTTP
   * server standing for the container's port): ports() gives it instead of the name that answers nothing.
   */
  servePort(id: string, port: number, address: string): void {
    this.served.set(`${id}:${port}`, address);
  }

  /** The spec a workload was last created or started with: what the driver was handed (tests, demos). */
  specOf(id: string): WorkloadSpec | undefined {
    return this.workloads.get(id)?.spec;
  }

  // ---- contract ----
  async create(spec: WorkloadSpec): Promise<void> {
    const existing = this.workloads.get(spec.id);
    if (existing && existing.phase !== 'absent') return;
    const w: SimWorkload = { spec, phase: 'creating', sinceMs: this.now(), pending: 'pulling', runs: existing?.runs ?? [] };
    const injected = this.failNext.get(spec.id) ?? this.markerFailure(spec.image);
    this.failNext.delete(spec.id);
    if (injected === 'insufficient_resource') {
      this.to(w, 'failed', undefined, 'insufficient_resource', 'no node in the cluster has enough free GPUs for this instance');
    } else if (injected === 'image_pull_failed') {
      w.reason = 'image_pull_failed'; // applied when the pull phase ends
    } else if (injected === 'crashed') {
      w.reason = 'crashed';
    }
    this.workloads.set(spec.id, w);
  }

  async describe(id: string): Promise<Observed> {
    const w = this.workloads.get(id);
    if (!w) return { phase: 'absent' };
    this.settle(w);
    if (w.phase === 'absent') {
      this.workloads.delete(id);
      await this.closeServer(w);
      return { phase: 'absent' };
    }
    await this.syncServer(w);
    const o: Observed = { phase: w.phase };
    if (w.startedAtMs !== undefined && w.phase === 'running') o.startedAtMs = w.startedAtMs;
    if (w.phase === 'failed' || w.phase === 'stopped') o.endedAtMs = w.sinceMs;
    if (w.phase === 'failed') {
      o.reason = w.reason ?? 'unknown';
      if (w.message) o.message = w.message;
    }
    if (w.reclaimNotice) o.reclaimNotice = true;
    return o;
  }

  async start(spec: WorkloadSpec): Promise<void> {
    const w = this.workloads.get(spec.id);
    if (!w) return this.create(spec);
    this.settle(w);
    if (w.phase === 'stopped' || w.phase === 'failed') {
      w.spec = spec;
      w.reason = this.markerFailure(spec.image) === 'crashed' ? 'crashed' : undefined;
      w.message = undefined;
      this.to(w, 'starting', 'running');
    }
  }

  async stop(id: string): Promise<void> {
    const w = this.workloads.get(id);
    if (!w) return;
    this.settle(w);
    if (w.phase === 'stopped' || w.phase === 'stopping' || w.phase === 'deleting') return;
    this.endRun(w, this.now(), 'received SIGTERM: shutting down');
    this.to(w, 'stopping', 'stopped');
    await this.closeServer(w);
  }

  async delete(id: string): Promise<void> {
    const w = this.workloads.get(id);
    if (!w) return;
    this.settle(w);
    if (w.phase === 'deleting') return;
    w.reclaimNotice = false;
    this.endRun(w, this.now(), 'received SIGTERM: shutting down');
    this.to(w, 'deleting', 'absent');
    await this.closeServer(w);
  }

  async address(id: string): Promise<string | undefined> {
    return (await this.ports(id))[0]?.endpoint;
  }

  /**
   * While it runs: a serverless worker's port is its real HTTP server (the one address()
   * gives); an instance's ports are names that answer nothing (`<id>.<cluster>.gantry.local:<port>`,
   * what the instance view always showed): the sim runs no instance process.
   */
  async ports(id: string): Promise<WorkloadPort[]> {
    const w = this.workloads.get(id);
    if (!w) return [];
    this.settle(w);
    await this.syncServer(w);
    if (w.phase !== 'running') return [];
    const { spec } = w;
    if (spec.worker) {
      const first = spec.ports[0];
      const endpoint = w.server?.address;
      return first && endpoint ? [{ port: first.port, type: first.type, endpoint }] : [];
    }
    return spec.ports.map((p) => ({ port: p.port, type: p.type, endpoint: this.served.get(`${spec.id}:${p.port}`) ?? `${spec.id}.${spec.clusterId}.gantry.local:${p.port}` }));
  }

  /** Every workload it holds that is not gone (the sim's "labels" are its memory). */
  async list(): Promise<string[]> {
    const out: string[] = [];
    for (const [id, w] of this.workloads) {
      this.settle(w);
      if (w.phase !== 'absent') out.push(id);
    }
    return out;
  }

  async logs(id: string, afterMs: number, limit: number): Promise<WorkloadLogLine[]> {
    const w = this.workloads.get(id);
    if (!w) return [];
    this.settle(w);
    const now = this.now();
    return w.runs.flatMap((r) => simRunLines(r, now, this.heartbeatMs)).filter((l) => l.atMs > afterMs).slice(0, limit);
  }

  /** Close every worker server (the process or the test ends); the workloads stay, without one. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.workloads.values()].map((w) => this.closeServer(w)));
  }

  // ---- serverless workers: a real HTTP server while running ----
  private async syncServer(w: SimWorkload): Promise<void> {
    if (!w.spec.worker) return;
    if (w.phase !== 'running' || this.closed) return this.closeServer(w);
    if (w.server) return;
    w.serverStarting ??= (async () => {
      const server = new SimWorkerServer({
        workerId: w.spec.id, healthPath: w.spec.worker!.health.path, envs: w.spec.envs, clock: this.clock,
        ...(this.workerLlm ? { ttftMs: this.workerLlm.ttftMs, tokensPerSecond: this.workerLlm.tokensPerSecond } : {}),
      });
      await server.listen();
      w.server = server;
    })().finally(() => { w.serverStarting = undefined; });
    await w.serverStarting;
    if (w.phase !== 'running' || this.closed) await this.closeServer(w); // stopped (or the driver closed) while it was starting
  }

  private async closeServer(w: SimWorkload): Promise<void> {
    await w.serverStarting?.catch(() => {});
    const server = w.server;
    w.server = undefined;
    await server?.close();
  }

  // ---- time ----
  private now(): number {
    return this.clock.nowMs();
  }
  private markerFailure(image: string): FailureReason | undefined {
    for (const [marker, reason] of Object.entries(SIM_FAILURE_MARKERS)) if (image.includes(marker)) return reason;
    return undefined;
  }
  private to(w: SimWorkload, phase: ObservedPhase, pending?: SimWorkload['pending'], reason?: FailureReason, message?: string): void {
    w.phase = phase;
    w.sinceMs = this.now();
    w.pending = pending;
    if (reason) w.reason = reason;
    if (message) w.message = message;
  }
  private durationOf(phase: ObservedPhase): number {
    switch (phase) {
      case 'creating': return this.t.createMs;
      case 'pulling': return this.t.pullMs;
      case 'starting': return this.t.startMs;
      case 'stopping': return this.t.stopMs;
      case 'deleting': return this.t.deleteMs;
      default: return Infinity;
    }
  }
  /** The run under way ends at `atMs` with its last line (a run that ended already keeps its end). */
  private endRun(w: SimWorkload, atMs: number, line: string): void {
    const run = w.runs[w.runs.length - 1];
    if (run && run.endedAtMs === undefined) Object.assign(run, { endedAtMs: atMs, endLine: line });
  }
  /** Advance a workload through every timed phase that has ended by now. */
  private settle(w: SimWorkload): void {
    for (;;) {
      const now = this.now();
      if (w.phase === 'running' && w.reason === 'crashed' && w.startedAtMs !== undefined && now >= w.startedAtMs + this.crashAfterMs) {
        const at = w.startedAtMs + this.crashAfterMs;
        w.phase = 'failed';
        w.sinceMs = at;
        w.message = `container exited with code 1 after ${Math.round(this.crashAfterMs / 1000)} s`;
        this.endRun(w, at, `fatal: ${w.message}`);
        return;
      }
      const end = w.sinceMs + this.durationOf(w.phase);
      if (now < end || !w.pending) return;
      if (w.phase === 'pulling' && w.reason === 'image_pull_failed') {
        w.phase = 'failed';
        w.sinceMs = end;
        w.pending = undefined;
        w.message = `failed to pull image "${w.spec.image}": manifest unknown or access denied`;
        return;
      }
      if (w.phase === 'starting' && w.spec.worker && NEVER_BOOTS.test(w.spec.image)) {
        w.phase = 'failed';
        w.sinceMs = end;
        w.pending = undefined;
        w.reason = 'crashed';
        w.message = `the container exited with code 1 while booting (image "${w.spec.image}" never boots)`;
        return;
      }
      const next = w.pending;
      w.phase = next;
      w.sinceMs = end;
      // a serverless worker boots (starting, startMs) after its pull; an instance runs at once
      w.pending = next === 'pulling' ? (w.spec.worker ? 'starting' : 'running') : next === 'starting' ? 'running' : undefined;
      if (next === 'running') {
        w.startedAtMs = end;
        // the last few runs are enough: earlier output was read long ago
        w.runs = [...w.runs.slice(-3), { spec: w.spec, startedAtMs: end }];
      }
    }
  }
}
