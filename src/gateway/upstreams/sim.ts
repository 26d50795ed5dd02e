// The built-in simulator: deterministic output derived from the input, real streaming at a
// configured time to first token and speed, exact usage by the tokenizer in ../tokens.ts.
import { createHash, type Hash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { contentText, simChatPromptTokensAsync, simTokenCounts, simTokens, Turns } from '../tokens.ts';
import { promptUnits } from '../context.ts';
import { UpstreamError, type StreamOutcome, type ModelBody, type Upstream, type UpstreamRequest, type Usage } from './upstream.ts';

const WORDS = ('the a of to and in is that for it as with on was by this be are from at or an which have not ' +
  'model token budget stream answer question simple small large cloud compute gateway ledger quota request reply ' +
  'light river stone garden window market signal system number letter music paper orange silver quiet rapid').split(' ');

function seedOf(...parts: string[]): number {
  return createHash('sha256').update(parts.join('\u0000')).digest().readUInt32LE(0);
}

/** mulberry32: a tiny deterministic PRNG. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Plan {
  tokens: string[]; // each one token by simTokens
  finish: 'stop' | 'length';
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

  of(index: number, seed: unknown): number {
    return this.hash.copy().update(`${index}\u0000${String(seed ?? '')}`).digest().readUInt32LE(0);
  }
}

/** How many tokens to produce: a natural length from the input, cut at max_tokens (or exactly max_tokens with ignore_eos). */
function plan(seed: PromptSeed, index: number, promptTokens: number, body: ModelBody, contextSize: number): Plan {
  const r = rng(seed.of(index, body.seed));
  const max = Math.max(0, Math.min(Number(body.max_completion_tokens ?? body.max_tokens ?? contextSize), contextSize - promptTokens));
  const natural = 8 + Math.floor(r() * 57);
  const n = body.ignore_eos === true ? max : Math.min(natural, max);
  const tokens: string[] = [];
  for (let i = 0; i < n; i++) {
    if (i > 0 && i % 9 === 8 && i < n - 1) tokens.push(i % 18 === 17 ? '.' : ',');
    else tokens.push(WORDS[Math.floor(r() * WORDS.length)]!);
  }
  const cut = n === max && (n < natural || body.ignore_eos === true);
  return { tokens, finish: cut ? 'length' : 'stop' };
}

function render(tokens: string[]): string {
  let out = '';
  for (const t of tokens) out += /^[.,]$/.test(t) || out === '' ? t : ' ' + t;
  return out;
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

function usageBody(u: Usage) {
  return { prompt_tokens: u.promptTokens, completion_tokens: u.completionTokens, total_tokens: u.promptTokens + u.completionTokens };
}

interface Choice {
  index: number;
  plan: Plan;
}

/** The prompts of a request: the seed of each, and the token count of each (the gateway's when it counted them). */
async function prompts(req: UpstreamRequest): Promise<{ seeds: PromptSeed[]; counts: number[] }> {
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

/** The token count of each text unit (embeddings inputs, rerank [query, ...documents]): the gateway's, or counted here. */
async function unitCounts(req: UpstreamRequest, units: Array<string | number[]>): Promise<number[]> {
  if (req.promptTokens) return req.promptTokens;
  if (units.every((u) => Array.isArray(u))) return units.map((u) => u.length);
  return simTokenCounts(units.map((u) => (typeof u === 'string' ? u : JSON.stringify(u))));
}

export class SimUpstream implements Upstream {
  private readonly ttftMs: number;
  private readonly tokensPerS: number;
  constructor(opts: { ttftMs: number; tokensPerSecond: number }) {
    this.ttftMs = opts.ttftMs;
    this.tokensPerS = opts.tokensPerSecond;
  }

  private async choices(req: UpstreamRequest): Promise<{ choices: Choice[]; promptTokens: number }> {
    const { seeds, counts } = await prompts(req);
    // Like a real server: a prompt longer than the context is refused. The gateway's context
    // rule (context.ts) refuses these first, with the same count, so this is a safety net.
    const over = counts.findIndex((c) => c > req.contextSize);
    if (over >= 0) {
      throw new UpstreamError(`the prompt has ${counts[over]} tokens, more than the model's context of ${req.contextSize}`, { status: 400 });
    }
    const n = Number(req.body.n ?? 1);
    const choices: Choice[] = [];
    seeds.forEach((seed, p) => {
      for (let i = 0; i < n; i++) choices.push({ index: p * n + i, plan: plan(seed, i, counts[p]!, req.body, req.contextSize) });
    });
    return { choices, promptTokens: counts.reduce((s, c) => s + c, 0) };
  }

  async call(req: UpstreamRequest): Promise<{ body: Record<string, unknown>; usage: Usage }> {
    if (req.endpoint === 'embeddings') return this.embeddings(req);
    if (req.endpoint === 'rerank') return this.rerank(req);
    const { choices, promptTokens } = await this.choices(req);
    const completionTokens = choices.reduce((s, c) => s + c.plan.tokens.length, 0);
    const longest = Math.max(0, ...choices.map((c) => c.plan.tokens.length));
    await this.wait(this.ttftMs + (longest * 1000) / this.tokensPerS, req.signal);
    const usage = { promptTokens, completionTokens };
    const chat = req.endpoint === 'chat.completions';
    return {
      usage,
      body: {
        id: `${chat ? 'chatcmpl' : 'cmpl'}-${req.requestId}`,
        object: chat ? 'chat.completion' : 'text_completion',
        created: req.createdS,
        model: req.modelId,
        choices: choices.map((c) => (chat
          ? { index: c.index, message: { role: 'assistant', content: render(c.plan.tokens) }, logprobs: null, finish_reason: c.plan.finish }
          : { index: c.index, text: render(c.plan.tokens), logprobs: null, finish_reason: c.plan.finish })),
        usage: usageBody(usage),
        system_fingerprint: 'gantry-sim',
      },
    };
  }

  async stream(req: UpstreamRequest, emit: (chunk: Record<string, unknown>) => void): Promise<StreamOutcome> {
    const { choices, promptTokens } = await this.choices(req);
    const chat = req.endpoint === 'chat.completions';
    const base = { id: `${chat ? 'chatcmpl' : 'cmpl'}-${req.requestId}`, object: chat ? 'chat.completion.chunk' : 'text_completion', created: req.createdS, model: req.modelId };
    let produced = 0;
    const chunk = (index: number, text: string, finish: string | null, first = false) => emit({
      ...base,
      ...(chat ? { system_fingerprint: 'gantry-sim' } : {}),
      choices: [chat
        ? { index, delta: first ? { role: 'assistant', content: text } : finish ? {} : { content: text }, logprobs: null, finish_reason: finish }
        : { index, text, logprobs: null, finish_reason: finish }],
    });
    try {
      await this.wait(this.ttftMs, req.signal);
      if (chat) for (const c of choices) chunk(c.index, '', null, true);
      // Emit on a ~10 ms cadence whatever the speed, so fast settings do not mean a timer per token.
      const perTick = Math.max(1, Math.round(this.tokensPerS / 100));
      const tickMs = (perTick * 1000) / this.tokensPerS;
      const longest = Math.max(0, ...choices.map((c) => c.plan.tokens.length));
      for (let at = 0; at < longest; at += perTick) {
        if (at > 0) await this.wait(tickMs, req.signal);
        for (const c of choices) {
          const slice = c.plan.tokens.slice(at, at + perTick);
          if (!slice.length) continue;
          const prefix = at === 0 ? '' : /^[.,]$/.test(slice[0]!) ? '' : ' ';
          chunk(c.index, prefix + render(slice), null);
          produced += slice.length;
        }
      }
      for (const c of choices) chunk(c.index, '', c.plan.finish);
      return { usage: { promptTokens, completionTokens: produced }, finished: true };
    } catch (e) {
      if (req.signal.aborted) return { usage: { promptTokens, completionTokens: produced }, finished: false };
      throw e;
    }
  }

  private async embeddings(req: UpstreamRequest): Promise<{ body: Record<string, unknown>; usage: Usage }> {
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

  private async rerank(req: UpstreamRequest): Promise<{ body: Record<string, unknown>; usage: Usage }> {
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
