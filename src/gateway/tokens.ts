// Token arithmetic of the gateway: the simulator's exact tokenizer, and the two up-front
// estimates admission needs.
//  - promptBound: an upper bound on the prompt tokens any upstream can count. Every
//    tokenizer in use emits at most one token per UTF-8 byte of text, and the JSON framing of
//    each message (≥ 25 bytes) exceeds a chat template's few special tokens; so the byte
//    length of the prompt's JSON bounds it. Budgets reserve from this bound, which is why
//    settled cost never exceeds the reservation.
//  - promptEstimate: OpenAI's rule of thumb (≈ 4 bytes a token), counted against TPM up
//    front as OpenAI does, and refunded to the real figure after.

const PIECE = /[\p{L}\p{N}_]+|[^\s\p{L}\p{N}_]/gu;

/** The simulator's tokenizer: a run of letters/digits is one token, so is each other visible character. */
export function simTokens(text: string): string[] {
  return text.match(PIECE) ?? [];
}

export function simTokenCount(text: string): number {
  let n = 0;
  PIECE.lastIndex = 0;
  while (PIECE.exec(text) !== null) n++;
  return n;
}

export interface PromptSize {
  bound: number;
  estimate: number;
}

export function promptSize(prompt: unknown): PromptSize {
  const bytes = Buffer.byteLength(typeof prompt === 'string' ? prompt : JSON.stringify(prompt) ?? '');
  return { bound: bytes + 8, estimate: Math.ceil(bytes / 4) + 1 };
}

/** Text of an OpenAI message content: a string, or parts of which the text ones count. */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content.map((p) => (p && typeof p === 'object' && typeof (p as { text?: unknown }).text === 'string' ? (p as { text: string }).text : '')).join(' ');
  }
  return '';
}

/** Simulator accounting of a chat prompt: content tokens plus 3 per message and 3 to prime the reply (OpenAI's rule). */
export function simChatPromptTokens(messages: Array<{ role?: unknown; content?: unknown; name?: unknown }>): number {
  let n = 3;
  for (const m of messages) {
    n += 3 + simTokenCount(contentText(m.content));
    if (typeof m.name === 'string') n += 1;
  }
  return n;
}
