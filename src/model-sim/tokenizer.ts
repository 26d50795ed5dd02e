// The simulator's tokenizer: a run of letters/digits is one token, so is each other visible
// character. The simulated model counts its prompts and answers with it, and the gateway
// counts with it too when every upstream of a model is the simulator (gateway/context.ts),
// so the context rule and the bill use the count the model itself would. Linear in the input;
// counting long texts gives the event loop a turn every SLICE characters (simTokenCounts).
import { setImmediate as turn } from 'node:timers/promises';

/** Characters counted between two turns of the event loop (≈ 1–2 ms of scanning). */
const SLICE = 1 << 17;

const PIECE = /[\p{L}\p{N}_]+|[^\s\p{L}\p{N}_]/gu;

/** The tokens of a text: a run of letters/digits is one, so is each other visible character. */
export function simTokens(text: string): string[] {
  return text.match(PIECE) ?? [];
}

// The same tokenizer as a scan over char codes (the regex above, counted without
// allocating; equal on every string, lone surrogates included: see tokenizer.test.ts).
const SPACE = 0;
const WORD = 1;
const OTHER = 2;
function classOf(codePoint: number): number {
  const ch = String.fromCodePoint(codePoint);
  return /^\s$/u.test(ch) ? SPACE : /^[\p{L}\p{N}_]$/u.test(ch) ? WORD : OTHER;
}
const ASCII = new Uint8Array(128).map((_, c) => classOf(c));
const BMP = new Uint8Array(65536); // class + 1, filled as met (0: not yet)
const ASTRAL = new Map<number, number>();

/** Scan state carried across slices of one text. */
interface Scan {
  tokens: number;
  inWord: boolean;
}

function scan(s: string, from: number, to: number, st: Scan): void {
  let n = st.tokens;
  let inWord = st.inWord;
  for (let i = from; i < to; i++) {
    const c = s.charCodeAt(i);
    let k: number;
    if (c < 128) k = ASCII[c]!;
    else if ((c & 0xfc00) === 0xd800 && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      const cp = ((c - 0xd800) << 10) + (s.charCodeAt(++i) - 0xdc00) + 0x10000;
      let v = ASTRAL.get(cp);
      if (v === undefined) {
        v = classOf(cp);
        ASTRAL.set(cp, v);
      }
      k = v;
    } else {
      let v = BMP[c]!;
      if (v === 0) BMP[c] = v = classOf(c) + 1;
      k = v - 1;
    }
    if (k === WORD) {
      if (!inWord) {
        n++;
        inWord = true;
      }
    } else {
      inWord = false;
      if (k === OTHER) n++;
    }
  }
  st.tokens = n;
  st.inWord = inWord;
}

/** The simulator's token count of one text, at once (for short texts: a long one blocks the loop while it is scanned). */
export function simTokenCount(text: string): number {
  const st = { tokens: 0, inWord: false };
  scan(text, 0, text.length, st);
  return st.tokens;
}

/**
 * The simulator's token count of each text, giving the event loop a turn every SLICE
 * characters: an 8 MB prompt is counted in ~60 slices of a millisecond or two, so other
 * requests are served meanwhile. Short inputs are counted without waiting.
 */
export async function simTokenCounts(texts: readonly string[]): Promise<number[]> {
  const out: number[] = [];
  let sinceTurn = 0;
  for (const text of texts) {
    const st = { tokens: 0, inWord: false };
    for (let at = 0; at < text.length;) {
      let end = Math.min(text.length, at + SLICE);
      if (end < text.length && (text.charCodeAt(end - 1) & 0xfc00) === 0xd800) end++; // keep a surrogate pair together
      scan(text, at, end, st);
      sinceTurn += end - at;
      at = end;
      if (sinceTurn >= SLICE) {
        sinceTurn = 0;
        await turn();
      }
    }
    out.push(st.tokens);
  }
  return out;
}

/** Give the event loop a turn after every `SLICE` units of work reported (for loops over many small pieces). */
export class Turns {
  private since = 0;
  async after(units: number): Promise<void> {
    this.since += units;
    if (this.since >= SLICE) {
      this.since = 0;
      await turn();
    }
  }
}

/** Text of an OpenAI message content: a string, or parts of which the text ones count. */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content.map((p) => (p && typeof p === 'object' && typeof (p as { text?: unknown }).text === 'string' ? (p as { text: string }).text : '')).join(' ');
  }
  return '';
}

export type ChatMessage = { role?: unknown; content?: unknown; name?: unknown };

/** Simulator accounting of a chat prompt: content tokens plus 3 per message and 3 to prime the reply (OpenAI's rule). */
export function simChatPromptTokens(messages: ChatMessage[]): number {
  let n = 3;
  for (const m of messages) {
    n += 3 + simTokenCount(contentText(m.content));
    if (typeof m.name === 'string') n += 1;
  }
  return n;
}

/** simChatPromptTokens, giving the event loop turns on long messages. */
export async function simChatPromptTokensAsync(messages: ChatMessage[]): Promise<number> {
  const counts = await simTokenCounts(messages.map((m) => contentText(m.content)));
  let n = 3;
  messages.forEach((m, i) => {
    n += 3 + counts[i]!;
    if (typeof m.name === 'string') n += 1;
  });
  return n;
}

/** OpenAI's prompt forms: a string, strings, a token array, token arrays; each string or token array is one unit. */
export function promptUnits(p: unknown): Array<string | number[]> {
  if (Array.isArray(p) && p.length > 0 && typeof p[0] !== 'number') return p as Array<string | number[]>;
  return [p as string | number[]];
}
