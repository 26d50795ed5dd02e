// The context rule, judged before any upstream is called (after the model and access checks,
// before rate limits and budgets): what a request asks of the model must fit its context
// size, or the answer is 400 INVALID_REQUEST_BODY in OpenAI's words.
//  - chat and completions: prompt tokens + max output (max_completion_tokens, else
//    max_tokens) ≤ context_size, per choice as OpenAI counts it (n does not multiply); each
//    prompt of a multi-prompt completion is judged alone. Max output alone above the context
//    is refused naming it. Without a max output, the prompt alone must fit.
//  - embeddings: each input ≤ context_size. Rerank: the query with each document ≤ context_size.
// How prompts are counted, so that a request is never refused when it would fit:
//  - the simulator's own tokenizer, exactly, when every upstream of the model is the simulator
//    (which therefore never receives a prompt it would find too long);
//  - token-id prompts (completions, embeddings) exactly: one token per id;
//  - the tokenizer the operator named for the model's upstreams (`tokenizer`: an OpenAI
//    encoding or a tokenizer.json, lib/tokenizers.ts), exactly: chat prompts over what the
//    chat template makes of them (tokens.ts namedChatPromptTokens), other texts as they are;
//  - any other upstream: a lower bound, ⌈text bytes / 128⌉ (tokens.ts, MAX_BYTES_PER_TOKEN),
//    so only prompts too long for any tokenizer are refused here, and the upstream judges the
//    rest itself (its 400 reaches the client as INVALID_REQUEST_BODY too).
import { chatTextBytes, contentText, namedChatPromptTokens, promptUnits, simChatPromptTokensAsync, simTokenCounts, tokensAtLeast } from './tokens.ts';
import { tokenizerFor, type TextTokenizer } from '../lib/tokenizers.ts';
import { upstreamTokenizer } from '../domain/models/models.ts';
import type { Endpoint, ModelBody } from './upstreams/upstream.ts';
import { badRequest } from './errors.ts';

type Body = ModelBody;

/** Prompt tokens of a request, one count per unit the rule judges. */
export interface PromptTokens {
  /** chat: [the whole prompt, framing included]; completions: one per prompt; embeddings: one per input; rerank: [query, ...documents] */
  counts: number[];
  /** exact counts (the simulator's tokenizer, the model's named tokenizer, or token ids), else lower bounds */
  exact: boolean;
  /** counted with the simulator's tokenizer: the simulator takes these instead of counting again */
  simulator: boolean;
  /** counted with the tokenizer the operator named (the worst case then reserves these counts) */
  named?: boolean;
  /** UTF-8 bytes of each unit's text, when the counts are lower bounds (so units judged together are bounded together) */
  bytes?: number[];
}

/** The simulator's tokenizer when every upstream of a model is the simulator; otherwise unknown. */
export function simulatorOnly(upstream: unknown): boolean {
  const list = Array.isArray(upstream) ? upstream : [upstream];
  return list.length > 0 && list.every((t) => t === 'sim');
}

/** How a model's prompts are counted: the simulator's tokenizer, the one the operator named, or a lower bound. */
export type Counting = 'simulator' | 'bound' | TextTokenizer;

/** The counting for a model's upstreams (a named tokenizer is loaded on its first use, then cached). */
export async function countingFor(upstream: unknown): Promise<Counting> {
  if (simulatorOnly(upstream)) return 'simulator';
  const spec = upstreamTokenizer(upstream);
  return spec === undefined ? 'bound' : tokenizerFor(spec);
}

function rerankTexts(body: Body): string[] {
  const docs = (body.documents as unknown[]).map((d) => (typeof d === 'string' ? d : String((d as { text?: unknown }).text ?? '')));
  return [String(body.query), ...docs];
}

/**
 * Counts a request's prompts. `limit` is the most a unit may have and still fit: a named
 * tokenizer stops counting a long text past it (the count is then a lower bound, exact false).
 */
export async function measurePrompts(endpoint: Endpoint, body: Body, counting: Counting, limit = Number.MAX_SAFE_INTEGER): Promise<PromptTokens> {
  const simulator = counting === 'simulator';
  if (endpoint === 'chat.completions') {
    const msgs = body.messages as Array<{ content?: unknown; name?: unknown }>;
    if (simulator) return { counts: [await simChatPromptTokensAsync(msgs)], exact: true, simulator };
    if (counting !== 'bound') {
      const c = await namedChatPromptTokens(counting, msgs, limit);
      return { counts: [c.complete ? c.tokens : Math.max(c.tokens, tokensAtLeast(chatTextBytes(msgs)))], exact: c.complete, simulator, named: true };
    }
    return { counts: [tokensAtLeast(chatTextBytes(msgs))], exact: false, simulator };
  }
  const units: Array<string | number[]> = endpoint === 'rerank' ? rerankTexts(body) : promptUnits(endpoint === 'completions' ? body.prompt : body.input);
  if (units.every((u) => Array.isArray(u))) return { counts: units.map((u) => u.length), exact: true, simulator };
  const texts = units.map((u) => (typeof u === 'string' ? u : contentText(u)));
  if (simulator) return { counts: await simTokenCounts(texts), exact: true, simulator };
  if (counting !== 'bound') {
    const counts: number[] = [];
    let exact = true;
    for (const t of texts) {
      const c = await counting.count(t, limit);
      // an incomplete count is a lower bound; the one of any tokenizer may be higher
      counts.push(c.complete ? c.tokens : Math.max(c.tokens, tokensAtLeast(Buffer.byteLength(t))));
      exact &&= c.complete;
    }
    return { counts, exact, simulator, named: true };
  }
  const bytes = texts.map((t) => Buffer.byteLength(t));
  return { counts: bytes.map(tokensAtLeast), exact: false, simulator, bytes };
}

/** The most prompt tokens one unit of a request may have and fit the context (the counting's `limit`). */
export function promptLimit(body: Body, contextSize: number): number {
  return Math.max(0, contextSize - Math.min(maxOutput(body)?.tokens ?? 0, contextSize));
}

/** The max output a request asks for and the field that says it (max_completion_tokens wins, as at OpenAI). */
export function maxOutput(body: Body): { field: string; tokens: number } | undefined {
  if (body.max_completion_tokens !== undefined) return { field: 'max_completion_tokens', tokens: Number(body.max_completion_tokens) };
  if (body.max_tokens !== undefined) return { field: 'max_tokens', tokens: Number(body.max_tokens) };
  return undefined;
}

const RULE = 'must fit the model\'s context length';

/** Throws INVALID_REQUEST_BODY (400) when the request does not fit the model's context. */
export function checkContext(endpoint: Endpoint, body: Body, measured: PromptTokens, contextSize: number): void {
  const C = contextSize;
  const at = measured.exact ? '' : 'at least ';
  const head = `This model's maximum context length is ${C} tokens.`;
  // openaiCode: the `error.code` OpenAI gives this failure, which agent frameworks look for
  const meta = (field: string, extra: Record<string, unknown>) => ({ field, rule: RULE, contextSize: C, exact: measured.exact, openaiCode: 'context_length_exceeded', ...extra });
  const { counts } = measured;
  if (endpoint === 'chat.completions' || endpoint === 'completions') {
    const out = maxOutput(body);
    if (out && out.tokens > C) {
      throw badRequest(`${out.field} is too large: ${out.tokens}. ${head}`, meta(out.field, { requested: out.tokens }));
    }
    const chat = endpoint === 'chat.completions';
    const noun = chat ? 'messages' : 'prompt';
    counts.forEach((P, i) => {
      if (P + (out?.tokens ?? 0) <= C) return;
      const which = chat ? 'in the messages' : counts.length > 1 ? `in prompt ${i}` : 'in the prompt';
      const message = out
        ? `${head} However, you requested ${at}${P + out.tokens} tokens (${at}${P} ${which}, ${out.tokens} in the completion). Please reduce the length of the ${noun} or completion.`
        : `${head} However, your ${noun} resulted in ${at}${P} tokens. Please reduce the length of the ${noun}.`;
      throw badRequest(message, meta(noun, {
        promptTokens: P, completionTokens: out?.tokens ?? null, ...(counts.length > 1 ? { index: i } : {}),
      }));
    });
    return;
  }
  if (endpoint === 'embeddings') {
    counts.forEach((P, i) => {
      if (P <= C) return;
      const which = counts.length > 1 ? `input ${i}` : 'the input';
      throw badRequest(`${head} However, ${which} has ${at}${P} tokens. Please reduce the length of the input.`,
        meta('input', { promptTokens: P, ...(counts.length > 1 ? { index: i } : {}) }));
    });
    return;
  }
  const [q = 0, ...docs] = counts;
  if (q > C) {
    throw badRequest(`${head} However, the query has ${at}${q} tokens. Please reduce the length of the query.`, meta('query', { promptTokens: q }));
  }
  const { bytes } = measured;
  docs.forEach((d, j) => {
    // A lower bound for the pair is taken over its bytes together (a tokenizer that joins them may merge across).
    const pair = bytes ? tokensAtLeast(bytes[0]! + bytes[j + 1]!) : q + d;
    if (pair <= C) return;
    throw badRequest(`${head} However, the query and document ${j} have ${at}${pair} tokens together. Please reduce the length of the query or documents.`,
      meta('documents', { promptTokens: pair, index: j }));
  });
}
