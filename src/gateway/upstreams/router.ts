// Which upstream serves a model (the catalogue's `upstream` spec and its stored key) and
// failover across a list: the next upstream is tried only when the previous one could not be
// reached, so a request is never run twice.
import type { GatewayConfig } from '../../config.ts';
import type { SecretBox } from '../../lib/secret-box.ts';
import { openUpstreamKey, upstreamKeyFor } from '../../domain/models/catalogue.ts';
import type { UpstreamSpec, UpstreamTarget } from '../../domain/models/models.ts';
import { HttpUpstream, OriginPool } from './http.ts';
import { SimUpstream } from './sim.ts';
import type { UpstreamHealthTracker } from './health.ts';
import { isClientFault, UpstreamError, type StreamOutcome, type Upstream, type UpstreamRequest, type Usage } from './upstream.ts';

/** What the router reads of a catalogue row. */
export interface RoutedModel {
  id: string;
  upstream: unknown;
  upstreamKeySealed: string | null;
}

export class UpstreamRouter {
  private readonly sim: SimUpstream;
  private readonly pools = new Map<string, OriginPool>();
  /**
   * A model's upstreams, made for the catalogue row they were made from: a row is replaced
   * whenever the catalogue is read again (`catalogue.changed` from any replica, or the cache's
   * TTL), so a new spec or a rotated key is used from the next call, with no fingerprint to
   * compute per request. Keep-alive pools are per origin and outlive the rows.
   */
  private readonly resolved = new Map<string, { row: RoutedModel; list: Upstream[] }>();
  private readonly config: GatewayConfig;
  private readonly secrets: SecretBox;
  private readonly onKeyUnreadable: (modelId: string, err: unknown) => void;
  private readonly health: UpstreamHealthTracker;

  constructor(config: GatewayConfig, secrets: SecretBox, health: UpstreamHealthTracker, onKeyUnreadable: (modelId: string, err: unknown) => void) {
    this.config = config;
    this.health = health;
    this.secrets = secrets;
    this.onKeyUnreadable = onKeyUnreadable;
    this.sim = new SimUpstream({ ttftMs: config.simTtftMs, tokensPerSecond: config.simTokensPerSecond });
  }

  private target(t: UpstreamTarget, storedKey: string | undefined): Upstream {
    if (t === 'sim') return this.sim;
    const opts = { connectTimeoutMs: this.config.upstreamConnectTimeoutMs, timeoutMs: this.config.upstreamTimeoutMs };
    const origin = new URL(t.url).origin;
    let pool = this.pools.get(origin);
    if (!pool) {
      pool = new OriginPool(origin, opts);
      this.pools.set(origin, pool);
    }
    return new HttpUpstream({ url: t.url, model: t.model, apiKey: upstreamKeyFor(t, storedKey, this.config.upstreamCredential) }, pool, opts);
  }

  /** Whether a Responses request goes to the model as it is: every target says it speaks the Responses API (failover never changes the shape). */
  speaksResponses(spec: UpstreamSpec | unknown): boolean {
    const targets = (Array.isArray(spec) ? spec : [spec]) as UpstreamTarget[];
    return targets.length > 0 && targets.every((t) => t !== 'sim' && t.responses === true);
  }

  resolve(model: RoutedModel): Upstream[] {
    const cached = this.resolved.get(model.id);
    if (cached?.row === model) return cached.list;
    const targets = (Array.isArray(model.upstream) ? model.upstream : [model.upstream]) as UpstreamTarget[];
    const stored = this.storedKey(model);
    const list = targets.map((t) => this.target(t, stored));
    this.resolved.set(model.id, { row: model, list });
    return list;
  }

  /** The model's stored key in clear; one sealed under another secret key (a restored backup) is said, and the call goes without it. */
  private storedKey(model: RoutedModel): string | undefined {
    try {
      return openUpstreamKey(this.secrets, model.upstreamKeySealed);
    } catch (e) {
      this.onKeyUnreadable(model.id, e);
      return undefined;
    }
  }

  async call(model: RoutedModel, req: UpstreamRequest): Promise<{ body: Record<string, unknown>; usage: Usage }> {
    const list = this.resolve(model);
    for (let i = 0; ; i++) {
      try {
        const answer = await list[i]!.call(req);
        this.health.success(model.id);
        return answer;
      } catch (e) {
        if (!(e instanceof UpstreamError && e.connect && i + 1 < list.length)) throw this.failed(model, req, e);
      }
    }
  }

  async stream(model: RoutedModel, req: UpstreamRequest, emit: (chunk: Record<string, unknown>) => void): Promise<StreamOutcome> {
    const list = this.resolve(model);
    for (let i = 0; ; i++) {
      let emitted = false;
      try {
        const outcome = await list[i]!.stream(req, (c) => {
          emitted = true;
          emit(c);
        });
        if (outcome.finished) this.health.success(model.id);
        return outcome;
      } catch (e) {
        if (emitted || !(e instanceof UpstreamError && e.connect && i + 1 < list.length)) throw this.failed(model, req, e);
      }
    }
  }

  /** A call that failed for good: the upstream's failure counts against it; the client's own (a refused request, gone) does not. */
  private failed(model: RoutedModel, req: UpstreamRequest, e: unknown): unknown {
    if (!req.signal.aborted && !isClientFault(e)) this.health.failure(model.id, e);
    return e;
  }

  async close(): Promise<void> {
    await Promise.all([...this.pools.values()].map((p) => p.close()));
  }
}
