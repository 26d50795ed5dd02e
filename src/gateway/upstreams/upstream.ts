// What the gateway needs from whoever serves a model: the built-in simulator or an
// OpenAI-compatible HTTP server.
export const ENDPOINTS = ['chat.completions', 'completions', 'embeddings', 'rerank'] as const;
export type Endpoint = (typeof ENDPOINTS)[number];

export interface Usage {
  promptTokens: number;
  completionTokens: number;
  /** of promptTokens, served from the upstream's cache (`prompt_tokens_details.cached_tokens`) */
  cachedTokens?: number;
  /** of completionTokens, reasoning (`completion_tokens_details.reasoning_tokens`) */
  reasoningTokens?: number;
  /** the upstream's usage object as it reported it, handed back to the client whole */
  reported?: Record<string, unknown>;
}

/**
 * A model request's body: the client's JSON, passed on to the upstream as sent (fields the
 * gateway does not know included). The route schemas validated the fields it reads.
 */
// biome-ignore lint/suspicious/noExplicitAny: the OpenAI body is open-ended JSON that is forwarded, not modelled
export type ModelBody = Record<string, any>;

export interface UpstreamRequest {
  endpoint: Endpoint;
  /** The client's body as validated; `model` is the catalogue id. */
  body: ModelBody;
  modelId: string;
  contextSize: number;
  requestId: string;
  createdS: number;
  signal: AbortSignal;
  /**
   * The simulator's token count of each prompt unit, when the gateway already counted them
   * for the context rule (context.ts): chat [whole prompt], completions one per prompt,
   * embeddings one per input, rerank [query, ...documents].
   */
  promptTokens?: number[];
  /**
   * A Responses API request for an upstream that speaks it (every target of the model has
   * `responses: true`): sent as it is to `/responses` instead of `body` to chat completions,
   * and answered in the Responses shapes (objects and stream events) instead of chat's.
   */
  native?: ModelBody | undefined;
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

/** Upstream statuses that mean the client's request was refused (400 for the client); any other failure is a 503. */
const CLIENT_FAULT_STATUSES = new Set([400, 413, 422]);

/** The upstream refused the request itself (the client's to fix), not the upstream failing. */
export function isClientFault(e: unknown): boolean {
  return e instanceof UpstreamError && e.status !== undefined && CLIENT_FAULT_STATUSES.has(e.status);
}
