// The simulated model: a model that follows the request. Its output is a deterministic
// function of the request (the prompt, `seed`, `temperature`, the choice index), streamed
// at a configured time to first token and speed, with exact usage by its tokenizer
// (tokenizer.ts). What it honours: tools and tool_choice (tools.ts), response_format
// (json.ts; in JSON mode the schema the prompt gives, prompt-schema.ts), stop, temperature,
// seed, logprobs/top_logprobs, n, max_(completion_)tokens, ignore_eos; the text model
// itself is in text.ts. It answers OpenAI's shapes (chat, completions, embeddings, rerank).
// A leaf: it imports lib/ only. The gateway serves it as an upstream
// (gateway/upstreams/sim.ts), and the sim compute driver's serverless workers answer with it
// (drivers/sim/worker.ts).
import { createHash, type Hash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { AppError } from '../lib/errors.ts';
import { contentText, promptUnits, simChatPromptTokensAsync, simTokenCount, simTokenCounts, simTokens, Turns } from './tokenizer.ts';
import { jsonFor, Unsatisfiable } from './json.ts';
import { schemaInPrompt } from './prompt-schema.ts';
import { chatLogprobs, completionLogprobs, cutAtStop, forced, prose, rng, textOf, type Piece } from './text.ts';
import { toolCalls, toolsToCall, type ToolCall } from './tools.ts';
import type { SimBody } from './body.ts';

export type SimEndpoint = 'chat.completions' | 'completions' | 'embeddings' | 'rerank';

export interface SimRequest {
  endpoint: SimEndpoint;
  /** `model` is ignored: the answer names `modelId` */
  body: SimBody;
  modelId: string;
  contextSize: number;
  requestId: string;
  createdS: number;
  signal: AbortSignal;
  /** The token count of each prompt unit when the caller already counted them with tokenizer.ts (chat [whole prompt], completions one per prompt, embeddings one per input, rerank [query, ...documents]). */
  promptTokens?: number[];
}

export interface SimUsage {
  promptTokens: number;
  completionTokens: number;
}

export interface SimOutcome {
  usage: SimUsage;
  /** false when the stream ended early because the request's signal aborted */
  finished: boolean;
}

/** A prompt longer than the model's context: refused, as a real server would (400). */
export class PromptTooLong extends Error {}

function seedOf(...parts: string[]): number {
  return createHash('sha256').update(parts.join('\u0000')).digest().readUInt32LE(0);
}

/** What one choice answers: text (prose or JSON) or tool calls, and why it ended. */
interface Plan {
  pieces: Piece[];
  calls: Array<ToolCall & { pieces: Piece[]; nameTokens: number }>;
  finish: 'stop' | 'length' | 'tool_calls';
  /** the stop sequence the text ended before (reported as vLLM does, `stop_reason`: Anthropic's stop_sequence comes from it) */
  stop?: string;
}

function planTokens(p: Plan): number {
  return p.pieces.length + p.calls.reduce((s, c) => s + c.nameTokens + c.pieces.length, 0);
}

/**
 * The hash of a prompt's seed text (`<model>\n<text>\0`), fed in slices with turns of the
 * event loop between them; each choice copies it and adds `<index>\0<seed>`, which gives
 * exactly seedOf(`<model>\n<text>`, index, seed) while hashing a long prompt once.
 */
class PromptSeed {
  private readonly hash: Hash;
  private readonly turns = new Turns();
  constructor(modelId: string) {
    this.hash = createHash('sha256').update(`${modelId}\n`);
  }

  async add(text: string): Promise<void> {
    const SLICE = 1 << 20;
    for (let at = 0; at < text.length;) {
      let end = Math.min(text.length, at + SLICE);
      if (end < text.length && (text.charCodeAt(end - 1) & 0xfc00) === 0xd800) end++; // a surrogate pair stays whole
      this.hash.update(at === 0 && end === text.length ? text : text.slice(at, end));
      await this.turns.after(end - at);
      at = end;
    }
  }

  done(): PromptSeed {
    this.hash.update('\u0000');
    return this;
  }

  /** The random stream of one choice: the prompt, the choice index and the request's seed. */
  of(index: number, seed: unknown): number {
    return this.hash.copy().update(`${index}\u0000${String(seed ?? '')}`).digest().readUInt32LE(0);
  }

  /** The model's own state for this prompt: what greedy decoding follows, whatever the seed. */
  model(): number {
    return this.hash.copy().update('model\u0000').digest().readUInt32LE(0);
  }
}

/** The content json_object asks for when no schema says more. */
const JSON_OBJECT = {
  type: 'object', additionalProperties: false, required: ['answer', 'topics'],
  properties: { answer: { type: 'string', minLength: 12 }, topics: { type: 'array', minItems: 1, maxItems: 3, items: { type: 'string', maxLength: 24 } } },
};

/** JSON mode's answer: an object following the schema the prompt gives (prompt-schema.ts), else JSON_OBJECT. */
function jsonObject(body: SimBody, rand: () => number): string {
  const schema = schemaInPrompt(body.messages);
  if (schema) {
    try {
      return JSON.stringify(jsonFor(schema, rand));
    } catch (e) {
      // A schema written in prose may be one no value satisfies: the answer is then any object, as JSON mode promises.
      if (!(e instanceof Unsatisfiable)) throw e;
    }
  }
  return JSON.stringify(jsonFor(JSON_OBJECT, rand));
}

/** The JSON a response_format asks for, or undefined for text. */
function structured(body: SimBody, rand: () => number): string | undefined {
  const f = body.response_format;
  if (f?.type === 'json_object') return jsonObject(body, rand);
  if (f?.type !== 'json_schema') return undefined;
  try {
    return JSON.stringify(jsonFor(f.json_schema?.schema, rand));
  } catch (e) {
    if (!(e instanceof Unsatisfiable)) throw e;
    throw new AppError('INVALID_REQUEST_BODY', `Invalid schema for response_format '${String(f.json_schema?.name)}': ${e.message}`, { field: 'response_format', rule: 'satisfiable schema' });
  }
}

/**
 * One choice's answer. Without a seed the request itself seeds it, so the same request gives
 * the same answer; greedy decoding (temperature 0) ignores the seed and the choice index.
 * Output is cut at max tokens (finish "length"; exactly max tokens with ignore_eos), then at
 * the first stop sequence (finish "stop").
 */
function plan(seed: PromptSeed, index: number, promptTokens: number, req: SimRequest): Plan {
  const body = req.body;
  const temperature = body.temperature === undefined || body.temperature === null ? 1 : Number(body.temperature);
  const model = seed.model();
  const sample = rng(seed.of(index, body.seed));
  const rand = temperature === 0 ? rng(model) : sample; // choices that are not tokens of prose: lengths, JSON, arguments
  const max = Math.max(0, Math.min(Number(body.max_completion_tokens ?? body.max_tokens ?? req.contextSize), req.contextSize - promptTokens));
  const chat = req.endpoint === 'chat.completions';
  const functions = chat ? toolsToCall(body) : [];
  if (functions.length > 0) {
    let budget = max;
    const calls: Plan['calls'] = [];
    for (const c of toolCalls(functions, rand)) {
      if (budget <= 0) break;
      const nameTokens = simTokenCount(c.name);
      const all = forced(c.arguments, rand);
      const pieces = all.slice(0, Math.max(0, budget - nameTokens));
      budget -= nameTokens + pieces.length;
      calls.push({ ...c, arguments: textOf(pieces), pieces, nameTokens });
      if (pieces.length < all.length) return { pieces: [], calls, finish: 'length' };
    }
    return { pieces: [], calls, finish: calls.length < functions.length ? 'length' : 'tool_calls' };
  }
  const json = chat ? structured(body, rand) : undefined;
  let pieces: Piece[];
  let natural: number;
  if (json !== undefined) {
    pieces = forced(json, rand);
    natural = pieces.length;
  } else {
    natural = 8 + Math.floor(rand() * 57);
    pieces = prose(model, body.ignore_eos === true ? max : Math.min(natural, max), temperature, sample);
  }
  const finish: Plan['finish'] = body.ignore_eos === true || natural > max ? 'length' : 'stop';
  if (pieces.length > max) pieces = pieces.slice(0, max);
  const stops = body.stop === undefined || body.stop === null ? [] : [body.stop].flat().map(String);
  const cut = cutAtStop(pieces, stops);
  if (cut) return { pieces: cut.pieces, calls: [], finish: 'stop', stop: cut.stop };
  return { pieces, calls: [], finish };
}

/** vLLM's `stop_reason` on a choice: the stop sequence met, when one was. */
function stopReason(p: Plan): { stop_reason?: string } {
  return p.stop === undefined ? {} : { stop_reason: p.stop };
}

/** Deterministic embedding: each token's own random direction, summed, normalized, so similar texts are close. */
export function simEmbedding(text: string, dims: number): number[] {
  const v = new Array<number>(dims).fill(0);
  const toks = simTokens(text.toLowerCase());
  for (const t of toks.length ? toks : ['']) {
    const r = rng(seedOf('emb', t));
    for (let i = 0; i < dims; i++) v[i]! += r() * 2 - 1;
  }
  const norm = Math.sqrt(v.reduce((s, x) => s + x * x, 0)) || 1;
  return v.map((x) => x / norm);
}

function cosine(a: number[], b: number[]): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

/** The prompts of a request: the seed of each, and the token count of each (the caller's when it counted them). */
async function prompts(req: SimRequest): Promise<{ seeds: PromptSeed[]; counts: number[] }> {
  const b = req.body;
  if (req.endpoint === 'chat.completions') {
    const msgs = b.messages as Array<{ role?: unknown; content?: unknown }>;
    const seed = new PromptSeed(req.modelId);
    for (const [i, m] of msgs.entries()) {
      await seed.add(`${i > 0 ? '\n' : ''}${String(m.role)}:`);
      await seed.add(contentText(m.content));
    }
    return { seeds: [seed.done()], counts: req.promptTokens ?? [await simChatPromptTokensAsync(msgs)] };
  }
  // OpenAI's four prompt forms: a string, strings, a token array, token arrays. Each string or
  // token array is one prompt; a token array counts one token per id.
  const list = promptUnits(b.prompt);
  const seeds: PromptSeed[] = [];
  for (const x of list) {
    const seed = new PromptSeed(req.modelId);
    await seed.add(typeof x === 'string' ? x : JSON.stringify(x));
    seeds.push(seed.done());
  }
  const counts = req.promptTokens ?? (list.every((x) => Array.isArray(x))
    ? list.map((x) => x.length)
    : await simTokenCounts(list.map((x) => String(x))));
  return { seeds, counts };
}

/** The token count of each text unit (embeddings inputs, rerank [query, ...documents]): the caller's, or counted here. */
async function unitCounts(req: SimRequest, units: Array<string | number[]>): Promise<number[]> {
  if (req.promptTokens) return req.promptTokens;
  if (units.every((u) => Array.isArray(u))) return units.map((u) => u.length);
  return simTokenCounts(units.map((u) => (typeof u === 'string' ? u : JSON.stringify(u))));
}

function usageBody(u: SimUsage) {
  return { prompt_tokens: u.promptTokens, completion_tokens: u.completionTokens, total_tokens: u.promptTokens + u.completionTokens };
}

interface Choice {
  index: number;
  plan: Plan;
}

/** How many alternatives logprobs list per token, or undefined when the request wants none. */
function logprobsWanted(req: SimRequest): number | undefined {
  const b = req.body;
  if (req.endpoint === 'chat.completions') return b.logprobs === true ? Number(b.top_logprobs ?? 0) : undefined;
  return typeof b.logprobs === 'number' ? b.logprobs : undefined;
}

function toolCallBody(c: ToolCall) {
  return { id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } };
}

/**
 * The stream of one choice, cut into what each tick sends: a tick carries up to `perTick`
 * tokens. Text goes as content deltas; tool calls as OpenAI sends them: a first delta with
 * the call's index, id, type, name and empty arguments, then the arguments in fragments.
 */
function ticksOf(c: Choice, perTick: number, chat: boolean, k: number | undefined): Array<Array<{ delta: Record<string, unknown>; logprobs: unknown; tokens: number }>> {
  const ticks: Array<Array<{ delta: Record<string, unknown>; logprobs: unknown; tokens: number }>> = [];
  const { plan } = c;
  if (plan.calls.length === 0) {
    let offset = 0;
    for (let at = 0; at < plan.pieces.length || at === 0; at += perTick) {
      const pieces = plan.pieces.slice(at, at + perTick);
      const text = textOf(pieces);
      const logprobs = k === undefined ? null : chat ? chatLogprobs(pieces, k) : completionLogprobs(pieces, k, offset);
      offset += text.length;
      const tick = [];
      if (at === 0 && chat) tick.push({ delta: { role: 'assistant', content: '', refusal: null }, logprobs: null, tokens: 0 });
      if (pieces.length) tick.push({ delta: chat ? { content: text } : { text }, logprobs, tokens: pieces.length });
      ticks.push(tick);
    }
    return ticks;
  }
  let tick: Array<{ delta: Record<string, unknown>; logprobs: unknown; tokens: number }> = [];
  let room = perTick;
  for (const [i, call] of plan.calls.entries()) {
    const head = { index: i, id: call.id, type: 'function', function: { name: call.name, arguments: '' } };
    tick.push({ delta: i === 0 ? { role: 'assistant', content: null, refusal: null, tool_calls: [head] } : { tool_calls: [head] }, logprobs: null, tokens: call.nameTokens });
    for (let at = 0; at < call.pieces.length;) {
      if (room === 0) {
        ticks.push(tick);
        tick = [];
        room = perTick;
      }
      const pieces = call.pieces.slice(at, at + room);
      tick.push({ delta: { tool_calls: [{ index: i, function: { arguments: textOf(pieces) } }] }, logprobs: null, tokens: pieces.length });
      room -= pieces.length;
      at += pieces.length;
    }
  }
  ticks.push(tick);
  return ticks;
}

export class ModelSim {
  private readonly ttftMs: number;
  private readonly tokensPerS: number;
  constructor(opts: { ttftMs: number; tokensPerSecond: number }) {
    this.ttftMs = opts.ttftMs;
    this.tokensPerS = opts.tokensPerSecond;
  }

  private async choices(req: SimRequest): Promise<{ choices: Choice[]; promptTokens: number }> {
    const { seeds, counts } = await prompts(req);
    // Like a real server: a prompt longer than the context is refused. The gateway's context
    // rule (gateway/context.ts) refuses these first, with the same count, so there this is a
    // safety net.
    const over = counts.findIndex((c) => c > req.contextSize);
    if (over >= 0) {
      throw new PromptTooLong(`the prompt has ${counts[over]} tokens, more than the model's context of ${req.contextSize}`);
    }
    const n = Number(req.body.n ?? 1);
    const choices: Choice[] = [];
    seeds.forEach((seed, p) => {
      for (let i = 0; i < n; i++) choices.push({ index: p * n + i, plan: plan(seed, i, counts[p]!, req) });
    });
    return { choices, promptTokens: counts.reduce((s, c) => s + c, 0) };
  }

  async call(req: SimRequest): Promise<{ body: Record<string, unknown>; usage: SimUsage }> {
    if (req.endpoint === 'embeddings') return this.embeddings(req);
    if (req.endpoint === 'rerank') return this.rerank(req);
    const { choices, promptTokens } = await this.choices(req);
    const completionTokens = choices.reduce((s, c) => s + planTokens(c.plan), 0);
    const longest = Math.max(0, ...choices.map((c) => planTokens(c.plan)));
    await this.wait(this.ttftMs + (longest * 1000) / this.tokensPerS, req.signal);
    const usage = { promptTokens, completionTokens };
    const chat = req.endpoint === 'chat.completions';
    const k = logprobsWanted(req);
    return {
      usage,
      body: {
        id: `${chat ? 'chatcmpl' : 'cmpl'}-${req.requestId}`,
        object: chat ? 'chat.completion' : 'text_completion',
        created: req.createdS,
        model: req.modelId,
        choices: choices.map(({ index, plan: p }) => {
          if (!chat) return { index, text: textOf(p.pieces), logprobs: k === undefined ? null : completionLogprobs(p.pieces, k, 0), finish_reason: p.finish, ...stopReason(p) };
          const message = p.calls.length
            ? { role: 'assistant', content: null, refusal: null, tool_calls: p.calls.map(toolCallBody) }
            : { role: 'assistant', content: textOf(p.pieces), refusal: null };
          const logprobs = k === undefined ? null : p.calls.length ? { content: null, refusal: null } : chatLogprobs(p.pieces, k);
          return { index, message, logprobs, finish_reason: p.finish, ...stopReason(p) };
        }),
        usage: usageBody(usage),
        system_fingerprint: 'gantry-sim',
      },
    };
  }

  /** Emits OpenAI chunk objects (no usage chunk) and resolves with what was produced. */
  async stream(req: SimRequest, emit: (chunk: Record<string, unknown>) => void): Promise<SimOutcome> {
    const { choices, promptTokens } = await this.choices(req);
    const chat = req.endpoint === 'chat.completions';
    const base = {
      id: `${chat ? 'chatcmpl' : 'cmpl'}-${req.requestId}`, object: chat ? 'chat.completion.chunk' : 'text_completion', created: req.createdS, model: req.modelId,
      ...(chat ? { system_fingerprint: 'gantry-sim' } : {}),
    };
    const chunk = (index: number, delta: Record<string, unknown>, logprobs: unknown, finish: string | null, end: { stop_reason?: string } = {}) => emit({
      ...base,
      choices: [chat ? { index, delta, logprobs, finish_reason: finish, ...end } : { index, text: String(delta.text ?? ''), logprobs, finish_reason: finish, ...end }],
    });
    // Emit on a ~10 ms cadence whatever the speed, so fast settings do not mean a timer per token.
    const perTick = Math.max(1, Math.round(this.tokensPerS / 100));
    const tickMs = (perTick * 1000) / this.tokensPerS;
    const k = logprobsWanted(req);
    const plans = choices.map((c) => ticksOf(c, perTick, chat, k));
    let produced = 0;
    try {
      await this.wait(this.ttftMs, req.signal);
      const longest = Math.max(0, ...plans.map((t) => t.length));
      for (let t = 0; t < longest; t++) {
        if (t > 0) await this.wait(tickMs, req.signal);
        for (const [i, c] of choices.entries()) {
          for (const part of plans[i]![t] ?? []) {
            chunk(c.index, part.delta, part.logprobs, null);
            produced += part.tokens;
          }
        }
      }
      for (const c of choices) chunk(c.index, {}, null, c.plan.finish, stopReason(c.plan));
      return { usage: { promptTokens, completionTokens: produced }, finished: true };
    } catch (e) {
      if (req.signal.aborted) return { usage: { promptTokens, completionTokens: produced }, finished: false };
      throw e;
    }
  }

  private async embeddings(req: SimRequest): Promise<{ body: Record<string, unknown>; usage: SimUsage }> {
    const b = req.body;
    const raw = promptUnits(b.input);
    const texts = raw.map((x) => (typeof x === 'string' ? x : JSON.stringify(x)));
    const dims = Number(b.dimensions ?? 256);
    const promptTokens = (await unitCounts(req, raw)).reduce((s, c) => s + c, 0);
    const turns = new Turns();
    const data = [];
    for (const [index, t] of texts.entries()) {
      const v = simEmbedding(t, dims);
      const embedding = b.encoding_format === 'base64' ? Buffer.from(new Float32Array(v).buffer).toString('base64') : v;
      data.push({ object: 'embedding', index, embedding });
      await turns.after(t.length + dims * 16); // many inputs: other requests get turns between them
    }
    const usage = { promptTokens, completionTokens: 0 };
    return { usage, body: { object: 'list', data, model: req.modelId, usage: { prompt_tokens: promptTokens, total_tokens: promptTokens } } };
  }

  private async rerank(req: SimRequest): Promise<{ body: Record<string, unknown>; usage: SimUsage }> {
    const b = req.body;
    const docs = (b.documents as unknown[]).map((d) => (typeof d === 'string' ? d : String((d as { text?: unknown }).text ?? '')));
    const q = simEmbedding(String(b.query), 64);
    const turns = new Turns();
    const scored = [];
    for (const [index, text] of docs.entries()) {
      const c = cosine(q, simEmbedding(text, 64));
      scored.push({ index, document: { text }, relevance_score: Math.round((1 / (1 + Math.exp(-6 * c))) * 1e6) / 1e6 });
      await turns.after(text.length + 1024);
    }
    scored.sort((x, y) => y.relevance_score - x.relevance_score || x.index - y.index);
    const topN = b.top_n === undefined ? scored.length : Number(b.top_n);
    const promptTokens = (await unitCounts(req, [String(b.query), ...docs])).reduce((s, c) => s + c, 0);
    const usage = { promptTokens, completionTokens: 0 };
    return { usage, body: { id: `rerank-${req.requestId}`, model: req.modelId, results: scored.slice(0, topN), usage: { prompt_tokens: promptTokens, total_tokens: promptTokens } } };
  }

  private async wait(ms: number, signal: AbortSignal): Promise<void> {
    if (ms > 0) await sleep(ms, undefined, { signal });
    else if (signal.aborted) throw signal.reason;
  }
}
