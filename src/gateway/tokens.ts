// Token arithmetic of the gateway: the simulator's exact tokenizer (model-sim/tokenizer.ts, the
// model's own: exported here for the gateway's callers), the lower bound the context rule
// uses for upstreams whose tokenizer is unknown, and the two up-front estimates admission
// needs.
//  - promptBound: an upper bound on the prompt tokens any upstream can count. Every
//    tokenizer in use emits at most one token per UTF-8 byte of text, and the JSON framing of
//    each message (≥ 25 bytes) exceeds a chat template's few special tokens; so the byte
//    length of the prompt's JSON bounds it. Budgets reserve from this bound, which is why
//    settled cost never exceeds the reservation.
//  - promptEstimate: OpenAI's rule of thumb (≈ 4 bytes a token), counted against TPM up
//    front as OpenAI does, and refunded to the real figure after.
//  - lower bound (context rule, unknown tokenizers): no token is longer than
//    MAX_BYTES_PER_TOKEN bytes, so a text of B bytes has at least ⌈B / 128⌉ tokens.
//  - namedChatPromptTokens: the exact count when the operator named the model's tokenizer
//    (lib/tokenizers.ts), over what the upstream's chat template makes of the messages.
// Everything here is linear in the input and never re-serializes it (jsonBytes).
import { jsonBytes } from '../lib/json-encode.ts';
import type { Counted, TextTokenizer } from '../lib/tokenizers.ts';
import { contentText, type ChatMessage } from '../model-sim/tokenizer.ts';

export { contentText, promptUnits, simChatPromptTokens, simChatPromptTokensAsync, simTokenCount, simTokenCounts, simTokens } from '../model-sim/tokenizer.ts';

/**
 * The longest token of the tokenizers we know, in UTF-8 bytes: OpenAI's gpt2, p50k_base,
 * cl100k_base and o200k_base all have tokens of exactly 128 bytes at most (runs of spaces and
 * the like); SentencePiece vocabularies (Llama 2, Mistral) cap pieces at 16 characters.
 */
export const MAX_BYTES_PER_TOKEN = 128;

/** A lower bound on the tokens of `bytes` UTF-8 bytes of text under any tokenizer we know. */
export function tokensAtLeast(bytes: number): number {
  return Math.ceil(bytes / MAX_BYTES_PER_TOKEN);
}

export interface PromptSize {
  bound: number;
  estimate: number;
}

export function promptSize(prompt: unknown): PromptSize {
  const bytes = typeof prompt === 'string' ? Buffer.byteLength(prompt) : jsonBytes(prompt);
  return { bound: bytes + 8, estimate: Math.ceil(bytes / 4) + 1 };
}

/** UTF-8 bytes of a chat prompt's text (the contents' text parts), for the lower bound. */
export function chatTextBytes(messages: ChatMessage[]): number {
  let n = 0;
  for (const m of messages) n += Buffer.byteLength(contentText(m.content));
  return n;
}

/**
 * What a chat template adds around each message, at most, in tokens: its role and markers
 * (Llama 3: `<|start_header_id|>role<|end_header_id|>` `\n\n` … `<|eot_id|>`, 5; ChatML as
 * Qwen uses it: `<|im_start|>role` `\n` … `<|im_end|>` `\n`, 5; OpenAI's own, 3).
 */
export const TEMPLATE_TOKENS_PER_MESSAGE = 5;
/** What it adds for the reply it primes (Llama 3: the beginning of text and the assistant's header, 5; ChatML 3; OpenAI 3). */
export const TEMPLATE_TOKENS_PER_REPLY = 5;

/**
 * A chat prompt under a named tokenizer, as the upstream's chat template lays it out: each
 * message's content (its text parts) and name, plus TEMPLATE_TOKENS_PER_MESSAGE per message
 * and TEMPLATE_TOKENS_PER_REPLY. Text a template adds of its own (a default system prompt, a
 * date line) and tool definitions are not in it. Counting stops once past `limit`.
 */
export async function namedChatPromptTokens(tok: TextTokenizer, messages: ChatMessage[], limit: number): Promise<Counted> {
  let n = TEMPLATE_TOKENS_PER_REPLY;
  for (const m of messages) {
    n += TEMPLATE_TOKENS_PER_MESSAGE;
    const c = await tok.count(contentText(m.content), limit - n);
    n += c.tokens;
    if (!c.complete) return { tokens: n, complete: false };
    if (typeof m.name === 'string') n += (await tok.count(m.name, limit)).tokens;
  }
  return { tokens: n, complete: true };
}
