// The data plane's decisions: which endpoint a request is for, and which worker takes it.
// A worker takes at most `maxConcurrent` requests at once (slots in WorkerLoad, shared by
// replicas), only while running, healthy and not draining; other requests wait in the
// endpoint's FIFO queue on this replica, up to `requestTimeout`. Proxying itself (bytes,
// headers) is in http/routes/serverless-proxy. Rules in ./README.md.
import { endpointUnavailable, noEndpointNamed, queueFull, queueTimedOut } from './errors.ts';
import type { Ctx } from '../context.ts';
import * as q from '../../store/serverless-workers.ts';
import type { EndpointRow, WorkerRow } from '../../store/serverless-workers.ts';
import type { WorkerLoad } from './load.ts';

export interface Dispatched {
  worker: WorkerRow;
  /** give the slot back when the response has ended (or failed) */
  release(): void;
  queueMs: number;
}

interface Waiter {
  sinceMs: number;
  timer?: NodeJS.Timeout;
  resolve(d: Dispatched): void;
  reject(e: Error): void;
  done: boolean;
}

interface EndpointQueue {
  ep: EndpointRow;
  waiters: Waiter[];
  poll: NodeJS.Timeout | undefined;
}

/** How long cached endpoint rows and worker lists are trusted without a change event. */
const CACHE_MS = 1000;
/** While requests wait, how often slots freed on other replicas are looked for. */
const POLL_MS = 20;

export class ServerlessRouter {
  private readonly ctx: Ctx;
  private readonly load: WorkerLoad;
  private readonly queueLimit: number;
  /** asks the runtime for a pass soon (scale out, scale from zero) */
  private readonly wake: (endpointId: string) => void;
  private readonly endpoints = new Map<string, { row: EndpointRow | undefined; atMs: number }>();
  private readonly workers = new Map<string, { rows: WorkerRow[]; atMs: number }>();
  private readonly queues = new Map<string, EndpointQueue>();
  private readonly localInflight = new Map<string, number>();

  constructor(ctx: Ctx, load: WorkerLoad, opts: { queueLimit: number; wake: (endpointId: string) => void }) {
    this.ctx = ctx;
    this.load = load;
    this.queueLimit = opts.queueLimit;
    this.wake = opts.wake;
    ctx.changes.subscribe('endpoint.workers.changed', (c) => this.forget(c.endpointId));
    // created, updated (maybe renamed) or terminating: the cached row and name are stale (the
    // runtime picks the change up at its next pass, at most a second away)
    ctx.changes.subscribe('endpoint.changed', (c) => {
      this.forgetName(c.teamId, c.appName);
      if (c.previousAppName) this.forgetName(c.teamId, c.previousAppName);
      this.forget(c.endpointId);
    });
    ctx.changes.onResync(() => {
      this.endpoints.clear();
      this.workers.clear();
    });
  }

  /** Drop what is cached of an endpoint (its row and its workers) and try its queue again. */
  forget(endpointId: string): void {
    this.workers.delete(endpointId);
    for (const [k, v] of this.endpoints) if (v.row?.id === endpointId) this.endpoints.delete(k);
    const eq = this.queues.get(endpointId);
    if (eq) void this.pump(eq);
  }

  /** Forget a team's endpoint name (created, renamed, deleted). */
  forgetName(teamId: string, appName: string): void {
    this.endpoints.delete(`${teamId}/${appName}`);
  }

  /** The caller's team's endpoint named `appName`, or the refusal a client sees. */
  async resolve(teamId: string, appName: string): Promise<EndpointRow> {
    const key = `${teamId}/${appName}`;
    const now = Date.now();
    let hit = this.endpoints.get(key);
    if (!hit || now - hit.atMs > CACHE_MS) {
      hit = { row: await q.findEndpointByAppName(this.ctx.db, teamId, appName), atMs: now };
      this.endpoints.set(key, hit);
    }
    const ep = hit.row;
    if (!ep || ep.state === 'terminating') {
      throw noEndpointNamed(appName);
    }
    if (ep.state === 'stopped' || ep.state === 'failed') {
      throw endpointUnavailable(`endpoint ${appName} is ${ep.state}: ${ep.stateMessage || ep.stateError || 'no worker runs'}`, { appName, state: ep.state });
    }
    if (ep.spec.workerConfig.maxNum === 0) {
      throw endpointUnavailable(`endpoint ${appName} has maxNum 0: it runs no worker`, { appName });
    }
    return ep;
  }

  private async routable(endpointId: string): Promise<WorkerRow[]> {
    const now = Date.now();
    const hit = this.workers.get(endpointId);
    if (hit && now - hit.atMs <= CACHE_MS) return hit.rows;
    const rows = await q.listRoutableWorkers(this.ctx.db, endpointId);
    this.workers.set(endpointId, { rows, atMs: now });
    return rows;
  }

  /** A worker slot for one request, waiting in the endpoint's queue up to its requestTimeout. */
  async dispatch(ep: EndpointRow, signal: AbortSignal): Promise<Dispatched> {
    // Nobody waits here: take a free slot at once, without a place in the queue (no timer,
    // no queue report): the common case costs one slot acquisition.
    if (!this.queues.get(ep.id)?.waiters.length) {
      const sinceMs = this.ctx.clock.nowMs();
      const got = await this.take(ep, await this.routable(ep.id));
      if (got) return this.grant(ep, got, sinceMs);
    }
    return this.enqueue(ep, signal);
  }

  private enqueue(ep: EndpointRow, signal: AbortSignal): Promise<Dispatched> {
    let eq = this.queues.get(ep.id);
    if (!eq) {
      eq = { ep, waiters: [], poll: undefined };
      this.queues.set(ep.id, eq);
    }
    eq.ep = ep;
    if (eq.waiters.length >= this.queueLimit) {
      return Promise.reject(queueFull(ep.appName, eq.waiters.length));
    }
    const queue = eq;
    const timeoutMs = ep.spec.workerConfig.requestTimeout * 1000;
    return new Promise<Dispatched>((resolve, reject) => {
      const w: Waiter = { sinceMs: this.ctx.clock.nowMs(), resolve, reject, done: false };
      const end = (e: Error) => {
        if (w.done) return;
        w.done = true;
        clearTimeout(timer);
        queue.waiters.splice(queue.waiters.indexOf(w), 1);
        this.report(queue);
        reject(e);
      };
      const timer: NodeJS.Timeout = setTimeout(() => end(queueTimedOut(ep.appName, ep.spec.workerConfig.requestTimeout)), timeoutMs);
      w.timer = timer;
      signal.addEventListener('abort', () => end(new Error('the client went away')), { once: true });
      queue.waiters.push(w);
      this.report(queue);
      void this.pump(queue);
    });
  }

  private report(eq: EndpointQueue): void {
    const oldest = eq.waiters[0];
    void this.load.reportQueue(eq.ep.id, { waiting: eq.waiters.length, oldestSinceMs: oldest ? oldest.sinceMs : null }, this.ctx.clock.nowMs()).catch(() => {});
    if (eq.waiters.length && !eq.poll) {
      eq.poll = setInterval(() => void this.pump(eq), POLL_MS);
      eq.poll.unref();
    } else if (!eq.waiters.length && eq.poll) {
      clearInterval(eq.poll);
      eq.poll = undefined;
    }
  }

  private pumping = new Set<string>();
  private lastWake = new Map<string, number>();

  /** Give free slots to waiters, oldest first. */
  private async pump(eq: EndpointQueue): Promise<void> {
    if (this.pumping.has(eq.ep.id) || !eq.waiters.length) return;
    this.pumping.add(eq.ep.id);
    try {
      const workers = await this.routable(eq.ep.id);
      while (eq.waiters.length) {
        const got = await this.take(eq.ep, workers);
        const head = eq.waiters[0];
        if (!got || !head) {
          if (got) await this.load.release(got.worker.id, got.token, this.ctx.clock.nowMs());
          break;
        }
        eq.waiters.shift();
        head.done = true;
        clearTimeout(head.timer);
        this.report(eq);
        head.resolve(this.grant(eq.ep, got, head.sinceMs));
      }
      if (eq.waiters.length) this.nudge(eq.ep.id);
    } finally {
      this.pumping.delete(eq.ep.id);
    }
  }

  /** A free slot on one of the workers, least loaded on this replica first. */
  private async take(ep: EndpointRow, workers: WorkerRow[]): Promise<{ worker: WorkerRow; token: string } | undefined> {
    const max = ep.spec.workerConfig.maxConcurrent;
    const leaseMs = ep.spec.workerConfig.requestTimeout * 2000 + 60_000;
    const order = workers.length > 1 ? [...workers].sort((a, b) => (this.localInflight.get(a.id) ?? 0) - (this.localInflight.get(b.id) ?? 0)) : workers;
    for (const worker of order) {
      const token = await this.load.tryAcquire(worker.id, max, leaseMs, this.ctx.clock.nowMs());
      if (token) return { worker, token };
    }
    return undefined;
  }

  /** The slot, as the request holds it: released once, and a release lets the next waiter in. */
  private grant(ep: EndpointRow, got: { worker: WorkerRow; token: string }, sinceMs: number): Dispatched {
    const id = got.worker.id;
    const token = got.token;
    this.localInflight.set(id, (this.localInflight.get(id) ?? 0) + 1);
    let released = false;
    return {
      worker: got.worker, queueMs: Math.max(0, this.ctx.clock.nowMs() - sinceMs),
      release: () => {
        if (released) return;
        released = true;
        this.localInflight.set(id, (this.localInflight.get(id) ?? 1) - 1);
        void this.load.release(id, token, this.ctx.clock.nowMs()).catch(() => {}).then(() => {
          const next = this.queues.get(ep.id);
          if (next?.waiters.length) void this.pump(next);
        });
      },
    };
  }

  /** Requests wait: let the runtime look at the endpoint soon (at most every 200 ms). */
  private nudge(endpointId: string): void {
    const now = Date.now();
    if (now - (this.lastWake.get(endpointId) ?? 0) < 200) return;
    this.lastWake.set(endpointId, now);
    this.wake(endpointId);
  }

  close(): void {
    for (const eq of this.queues.values()) if (eq.poll) clearInterval(eq.poll);
  }
}
