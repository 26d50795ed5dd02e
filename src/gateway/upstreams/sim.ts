// The built-in simulator as an upstream: the simulated model (src/model-sim/model.ts: what it
// answers and how fast) behind the gateway's Upstream interface. A prompt longer than the
// model's context is the upstream's 400, as from a real server.
import { ModelSim, PromptTooLong } from '../../model-sim/model.ts';
import { UpstreamError, type StreamOutcome, type Upstream, type UpstreamRequest, type Usage } from './upstream.ts';

function upstreamError(e: unknown): unknown {
  return e instanceof PromptTooLong ? new UpstreamError(e.message, { status: 400 }) : e;
}

export class SimUpstream implements Upstream {
  private readonly model: ModelSim;
  constructor(opts: { ttftMs: number; tokensPerSecond: number }) {
    this.model = new ModelSim(opts);
  }

  async call(req: UpstreamRequest): Promise<{ body: Record<string, unknown>; usage: Usage }> {
    try {
      return await this.model.call(req);
    } catch (e) {
      throw upstreamError(e);
    }
  }

  async stream(req: UpstreamRequest, emit: (chunk: Record<string, unknown>) => void): Promise<StreamOutcome> {
    try {
      return await this.model.stream(req, emit);
    } catch (e) {
      throw upstreamError(e);
    }
  }
}
