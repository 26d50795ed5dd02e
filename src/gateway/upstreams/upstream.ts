// What the gateway needs from whoever serves a model: the built-in simulator or an
// OpenAI-compatible HTTP server.
export const ENDPOINTS = ['chat.completions', 'completions', 'embeddings', 'rerank'] as const;
export type Endpoint = (typeof ENDPOINTS)[number];

export interface Usage {
  promptTokens: number;
  completionTokens: number;
}

export interface UpstreamRequest {
  endpoint: Endpoint;
  /** The client's body as validated; `model` is the catalogue id. */
  body: Record<string, any>;
  modelId: string;
  contextSize: number;
  requestId: string;
  createdS: number;
  signal: AbortSignal;
}

export interface StreamOutcome {
  usage: Usage;
  /** false when the stream ended early because the client went away. */
  finished: boolean;
}

export interface Upstream {
  call(req: UpstreamRequest): Promise<{ body: Record<string, unknown>; usage: Usage }>;
  /** Emits OpenAI chunk objects (no usage chunk: the gateway adds it) and resolves with what was produced. */
  stream(req: UpstreamRequest, emit: (chunk: Record<string, unknown>) => void): Promise<StreamOutcome>;
}

/** The upstream failed: nothing is billed. `connect` failures move on to the next upstream in the list. */
export class UpstreamError extends Error {
  readonly connect: boolean;
  readonly status: number | undefined;
  constructor(message: string, opts: { connect?: boolean; status?: number } = {}) {
    super(message);
    this.connect = opts.connect ?? false;
    this.status = opts.status;
  }
}
