// Whether the database and Redis can be reached, as this replica sees it. A dependency is
// marked down by the first connection failure any code meets (or a probe), and up again only
// by a probe that succeeds: probes run every `downProbeMs` while down (so serving resumes
// within that time of its return) and every `upProbeMs` while up (to notice a silent
// outage). While one is down, requests that need it are refused at once (503) instead of
// waiting on a connection, and /readyz says which one, so a load balancer can take the
// replica out. A replica never exits because a dependency failed.
import { DEPENDENCIES, dependencyRefusal, type Dependency } from '../lib/dependencies.ts';
import type { Logger } from '../lib/logger.ts';

interface State {
  up: boolean;
  sinceMs: number;
  lastError: string;
}

export interface HealthOptions {
  /** How each configured dependency is probed; one not listed is not used (always up). */
  probes: Partial<Record<Dependency, () => Promise<unknown>>>;
  log: Logger;
  downProbeMs?: number;
  upProbeMs?: number;
  /** A probe that takes longer than this failed. */
  probeTimeoutMs?: number;
}

export class DependencyHealth {
  private readonly states = new Map<Dependency, State>();
  private readonly probes: Partial<Record<Dependency, () => Promise<unknown>>>;
  private readonly log: Logger;
  private readonly downProbeMs: number;
  private readonly upProbeMs: number;
  private readonly probeTimeoutMs: number;
  private timers = new Map<Dependency, NodeJS.Timeout>();
  private probing = new Set<Dependency>();
  private started = false;
  private stopped = false;
  private readonly listeners = new Set<(dep: Dependency, up: boolean) => void>();

  constructor(opts: HealthOptions) {
    this.probes = opts.probes;
    this.log = opts.log;
    this.downProbeMs = opts.downProbeMs ?? 200;
    this.upProbeMs = opts.upProbeMs ?? 2000;
    this.probeTimeoutMs = opts.probeTimeoutMs ?? 1000;
    for (const dep of DEPENDENCIES) if (this.probes[dep]) this.states.set(dep, { up: true, sinceMs: Date.now(), lastError: '' });
  }

  /** Used by this replica at all (Redis only when configured; the embedded store is not probed). */
  uses(dep: Dependency): boolean {
    return this.states.has(dep);
  }

  isUp(dep: Dependency): boolean {
    return this.states.get(dep)?.up ?? true;
  }

  /** Refuse at once (503 naming it) when a dependency the work needs is down. */
  require(...deps: Dependency[]): void {
    for (const dep of deps) if (!this.isUp(dep)) throw dependencyRefusal(dep);
  }

  /** Any code that met a connection failure says so; probing takes it from here. */
  down(dep: Dependency, err?: unknown): void {
    const s = this.states.get(dep);
    if (!s) return;
    s.lastError = err instanceof Error ? err.message : String(err ?? '');
    if (!s.up) return;
    s.up = false;
    s.sinceMs = Date.now();
    this.log.warn({ dependency: dep, err: s.lastError }, 'dependency unreachable: refusing work that needs it until it answers again');
    this.notify(dep, false);
    this.schedule(dep, this.downProbeMs);
  }

  /** When a dependency comes back (or goes): counters restore what they hold, caches resync. */
  onChange(fn: (dep: Dependency, up: boolean) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** For /readyz and /metrics. */
  snapshot(): Record<string, { up: boolean; sinceMs: number; lastError: string }> {
    return Object.fromEntries([...this.states].map(([k, v]) => [k, { ...v }]));
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    for (const dep of this.states.keys()) this.schedule(dep, this.upProbeMs);
  }

  stop(): void {
    this.stopped = true;
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
  }

  /** Probe now (tests, and a caller that wants a fresh answer). */
  async probe(dep: Dependency): Promise<boolean> {
    const s = this.states.get(dep);
    const probe = this.probes[dep];
    if (!s || !probe) return true;
    if (this.probing.has(dep)) return s.up;
    this.probing.add(dep);
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        probe(),
        new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(`no answer within ${this.probeTimeoutMs} ms`)), this.probeTimeoutMs); }),
      ]);
      if (!s.up) {
        s.up = true;
        s.sinceMs = Date.now();
        this.log.info({ dependency: dep }, 'dependency reachable again');
        this.notify(dep, true);
      }
      return true;
    } catch (err) {
      this.down(dep, err);
      return false;
    } finally {
      clearTimeout(timer);
      this.probing.delete(dep);
    }
  }

  private schedule(dep: Dependency, ms: number): void {
    if (this.stopped) return;
    const existing = this.timers.get(dep);
    if (existing) clearTimeout(existing);
    const t = setTimeout(() => {
      this.timers.delete(dep);
      void this.probe(dep).then((up) => this.schedule(dep, up ? this.upProbeMs : this.downProbeMs));
    }, ms);
    t.unref();
    this.timers.set(dep, t);
  }

  private notify(dep: Dependency, up: boolean): void {
    for (const fn of this.listeners) {
      try {
        fn(dep, up);
      } catch (err) {
        this.log.warn({ err, dependency: dep }, 'a dependency listener failed');
      }
    }
  }
}
