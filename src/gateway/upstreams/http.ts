// An OpenAI-compatible HTTP upstream (vLLM, SGLang, Ollama, llama.cpp server, a hosted API)
// over a keep-alive undici pool per origin.
import type { Pool } from 'undici';
import { loadUndici } from '../../lib/undici.ts';
import { simTokenCount, promptSize } from '../tokens.ts';
import { encodeJson } from '../../lib/json-encode.ts';
import { UpstreamError, type StreamOutcome, type Upstream, type UpstreamRequest, type Usage } from './upstream.ts';
import { responsesText, responsesUsage, TERMINAL_EVENTS } from './responses-native.ts';

export interface HttpTarget {
  url: string; // base URL, e.g. http://host:8000/v1
  model?: string | undefined; // the name upstream, when it differs from the catalogue id
  apiKey?: string | undefined;
}

export interface HttpOptions {
  connectTimeoutMs: number;
  timeoutMs: number;
}

const PATHS = { 'chat.completions': '/chat/completions', completions: '/completions', embeddings: '/embeddings', rerank: '/rerank' } as const;
const RESPONSES_PATH = '/responses';
// Errors that mean the request never reached the server, so another upstream may take it.
const CONNECT_ERRORS = new Set(['ECONNREFUSED', 'ECONNRESET', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_SOCKET', 'EPIPE']);

function messageOf(json: unknown, text: string): string {
  const j = json as { error?: { message?: unknown } | string; message?: unknown } | null;
  if (j && typeof j.error === 'object' && typeof j.error?.message === 'string') return j.error.message;
  if (j && typeof j.error === 'string') return j.error;
  if (j && typeof j.message === 'string') return j.message;
  return text.slice(0, 200);
}

const count = (v: unknown): number => (typeof v === 'number' && Number.isSafeInteger(v) && v > 0 ? v : 0);

/** What the upstream reports, billed as reported: cached and reasoning tokens are parts of the prompt and completion counts. */
function usageOf(u: unknown): Usage | null {
  const x = u as Record<string, unknown> | null | undefined;
  if (!x || typeof x.prompt_tokens !== 'number') return null;
  const pd = x.prompt_tokens_details as { cached_tokens?: unknown } | null | undefined;
  const cd = x.completion_tokens_details as { reasoning_tokens?: unknown } | null | undefined;
  return {
    promptTokens: x.prompt_tokens, completionTokens: typeof x.completion_tokens === 'number' ? x.completion_tokens : 0,
    cachedTokens: count(pd?.cached_tokens), reasoningTokens: count(cd?.reasoning_tokens), reported: x,
  };
}

/** When a server reports no usage: the prompt estimate and the simulator's count of the text received. */
function estimatedUsage(req: UpstreamRequest, outputText: string): Usage {
  const prompt = req.body.messages ?? req.body.prompt ?? req.body.input ?? [req.body.query, req.body.documents];
  return { promptTokens: promptSize(prompt).estimate, completionTokens: simTokenCount(outputText) };
}

/** An origin's keep-alive pool, made on its first request (undici loads then: lib/undici.ts). */
export class OriginPool {
  private readonly origin: string;
  private readonly opts: HttpOptions;
  private made: Pool | undefined;
  private making: Promise<Pool> | undefined;

  constructor(origin: string, opts: HttpOptions) {
    this.origin = origin;
    this.opts = opts;
  }

  /** The pool, without an await once it is made. */
  get(): Pool | Promise<Pool> {
    if (this.made) return this.made;
    this.making ??= loadUndici().then(({ Pool }) => {
      this.made = new Pool(this.origin, { connections: 128, pipelining: 1, keepAliveTimeout: 30_000, connectTimeout: this.opts.connectTimeoutMs });
      return this.made;
    }, (e) => {
      this.making = undefined; // tried again by the next request
      throw e;
    });
    return this.making;
  }

  async close(): Promise<void> {
    await (this.made ?? await this.making?.catch(() => undefined))?.close();
  }
}

export class HttpUpstream implements Upstream {
  private readonly pool: OriginPool;
  private readonly basePath: string;
  private readonly target: HttpTarget;
  private readonly opts: HttpOptions;
  private readonly said: (upstreamText: string) => string;

  constructor(target: HttpTarget, pool: OriginPool, opts: HttpOptions) {
    this.target = target;
    const key = target.apiKey;
    // A server may quote the key it refused ("Incorrect API key provided: …"): what it says
    // reaches the log and, for a 4xx, the client, so the key is cut out first.
    this.said = key ? (text) => text.split(key).join('[redacted]') : (text) => text;
    this.pool = pool;
    this.opts = opts;
    this.basePath = new URL(target.url).pathname.replace(/\/+$/, '');
  }

  private async send(req: UpstreamRequest, body: Record<string, unknown>) {
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: body.stream ? 'text/event-stream' : 'application/json' };
    if (this.target.apiKey) headers.authorization = `Bearer ${this.target.apiKey}`;
    const bytes = await encodeJson(body); // a big prompt is serialized in slices, not in one turn of the loop
    const made = this.pool.get();
    const pool = made instanceof Promise ? await made : made;
    try {
      return await pool.request({
        path: this.basePath + (req.native ? RESPONSES_PATH : PATHS[req.endpoint]), method: 'POST', headers, body: bytes,
        signal: req.signal, headersTimeout: this.opts.timeoutMs, bodyTimeout: this.opts.timeoutMs,
      });
    } catch (e) {
      const code = (e as { code?: string }).code ?? '';
      if (req.signal.aborted) throw e;
      throw new UpstreamError(`upstream ${this.target.url} failed: ${code || (e as Error).message}`, { connect: CONNECT_ERRORS.has(code) });
    }
  }

  private upstreamBody(req: UpstreamRequest, stream: boolean): Record<string, unknown> {
    // A Responses request goes as it was sent (Responses streams always end with the usage).
    if (req.native) return { ...req.native, model: this.target.model ?? req.modelId };
    const body: Record<string, unknown> = { ...req.body, model: this.target.model ?? req.modelId };
    if (stream) body.stream_options = { ...(req.body.stream_options ?? {}), include_usage: true }; // we bill from it
    return body;
  }

  async call(req: UpstreamRequest): Promise<{ body: Record<string, unknown>; usage: Usage }> {
    const res = await this.send(req, this.upstreamBody(req, false));
    const text = await res.body.text();
    let json: Record<string, unknown> | null = null;
    try {
      json = JSON.parse(text) as Record<string, unknown>;
    } catch { /* reported below */ }
    if (res.statusCode >= 400 || !json) {
      throw new UpstreamError(`upstream answered ${res.statusCode}: ${this.said(messageOf(json, text))}`, { status: res.statusCode });
    }
    json.model = req.modelId;
    if (req.native) return { body: json, usage: responsesUsage(json.usage) ?? estimatedUsage(req, responsesText(json)) };
    const choices = (json.choices as Array<{ message?: { content?: unknown }; text?: unknown }> | undefined) ?? [];
    const usage = usageOf(json.usage) ?? estimatedUsage(req, choices.map((c) => String(c.message?.content ?? c.text ?? '')).join(' '));
    return { body: json, usage };
  }

  async stream(req: UpstreamRequest, emit: (chunk: Record<string, unknown>) => void): Promise<StreamOutcome> {
    const res = await this.send(req, this.upstreamBody(req, true));
    if (res.statusCode >= 400) {
      const text = await res.body.text();
      let json: unknown = null;
      try { json = JSON.parse(text); } catch { /* text */ }
      throw new UpstreamError(`upstream answered ${res.statusCode}: ${this.said(messageOf(json, text))}`, { status: res.statusCode });
    }
    let usage: Usage | null = null;
    let text = '';
    let buf = '';
    let done = false;
    const onEvent = req.native ? (data: string) => {
      // Responses events pass through whole; the terminal one carries the response's usage.
      let event: { type?: unknown; response?: Record<string, unknown>; delta?: unknown };
      try {
        event = JSON.parse(data);
      } catch {
        return;
      }
      if (event.response && typeof event.response === 'object') event.response.model = req.modelId;
      if (typeof event.delta === 'string') text += event.delta;
      if (typeof event.type === 'string' && TERMINAL_EVENTS.has(event.type)) {
        done = true;
        usage = responsesUsage(event.response?.usage);
      }
      emit(event as Record<string, unknown>);
    } : (data: string) => {
      if (data === '[DONE]') {
        done = true;
        return;
      }
      let chunk: Record<string, unknown>;
      try {
        chunk = JSON.parse(data) as Record<string, unknown>;
      } catch {
        return;
      }
      const u = usageOf(chunk.usage);
      if (u) usage = u;
      delete chunk.usage;
      const choices = chunk.choices as Array<{ delta?: { content?: unknown }; text?: unknown }> | undefined;
      if (!choices || choices.length === 0) return; // the usage-only chunk: the gateway writes its own
      for (const c of choices) text += String(c.delta?.content ?? c.text ?? '');
      chunk.model = req.modelId;
      emit(chunk);
    };
    try {
      for await (const piece of res.body) {
        buf += (piece as Buffer).toString('utf8');
        for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
          const line = buf.slice(0, nl).replace(/\r$/, '');
          buf = buf.slice(nl + 1);
          if (line.startsWith('data:')) onEvent(line.slice(5).trim());
        }
      }
    } catch (e) {
      if (!req.signal.aborted) throw new UpstreamError(`upstream stream broke: ${(e as Error).message}`);
    }
    return { usage: usage ?? estimatedUsage(req, text), finished: done || !req.signal.aborted };
  }
}
