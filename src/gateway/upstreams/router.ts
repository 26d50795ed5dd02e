// Which upstream serves a model (the catalogue's `upstream` spec) and failover across a
// list: the next upstream is tried only when the previous one could not be reached, so a
// request is never run twice.
import type { GatewayConfig } from '../../config.ts';
import type { UpstreamSpec, UpstreamTarget } from '../../domain/models/models.ts';
import { HttpUpstream, OriginPool } from './http.ts';
import { SimUpstream } from './sim.ts';
import { UpstreamError, type StreamOutcome, type Upstream, type UpstreamRequest, type Usage } from './upstream.ts';

export class UpstreamRouter {
  private readonly sim: SimUpstream;
  private readonly pools = new Map<string, OriginPool>();
  private readonly resolved = new Map<string, Upstream[]>();
  private readonly config: GatewayConfig;

  constructor(config: GatewayConfig) {
    this.config = config;
    this.sim = new SimUpstream({ ttftMs: config.simTtftMs, tokensPerSecond: config.simTokensPerSecond });
  }

  private target(t: UpstreamTarget): Upstream {
    if (t === 'sim') return this.sim;
    const opts = { connectTimeoutMs: this.config.upstreamConnectTimeoutMs, timeoutMs: this.config.upstreamTimeoutMs };
    const origin = new URL(t.url).origin;
    let pool = this.pools.get(origin);
    if (!pool) {
      pool = new OriginPool(origin, opts);
      this.pools.set(origin, pool);
    }
    return new HttpUpstream({ url: t.url, model: t.model, apiKey: t.apiKeyEnv ? this.config.upstreamCredential(t.apiKeyEnv) : undefined }, pool, opts);
  }

  /** Whether a Responses request goes to the model as it is: every target says it speaks the Responses API (failover never changes the shape). */
  speaksResponses(spec: UpstreamSpec | unknown): boolean {
    const targets = (Array.isArray(spec) ? spec : [spec]) as UpstreamTarget[];
    return targets.length > 0 && targets.every((t) => t !== 'sim' && t.responses === true);
  }

  resolve(spec: unknown): Upstream[] {
    const key = JSON.stringify(spec);
    let list = this.resolved.get(key);
    if (!list) {
      const targets = (Array.isArray(spec) ? spec : [spec]) as UpstreamTarget[];
      list = targets.map((t) => this.target(t));
      this.resolved.set(key, list);
    }
    return list;
  }

  async call(spec: UpstreamSpec | unknown, req: UpstreamRequest): Promise<{ body: Record<string, unknown>; usage: Usage }> {
    const list = this.resolve(spec);
    for (let i = 0; ; i++) {
      try {
        return await list[i]!.call(req);
      } catch (e) {
        if (!(e instanceof UpstreamError && e.connect && i + 1 < list.length)) throw e;
      }
    }
  }

  async stream(spec: UpstreamSpec | unknown, req: UpstreamRequest, emit: (chunk: Record<string, unknown>) => void): Promise<StreamOutcome> {
    const list = this.resolve(spec);
    for (let i = 0; ; i++) {
      let emitted = false;
      try {
        return await list[i]!.stream(req, (c) => {
          emitted = true;
          emit(c);
        });
      } catch (e) {
        if (emitted || !(e instanceof UpstreamError && e.connect && i + 1 < list.length)) throw e;
      }
    }
  }

  async close(): Promise<void> {
    await Promise.all([...this.pools.values()].map((p) => p.close()));
  }
}
