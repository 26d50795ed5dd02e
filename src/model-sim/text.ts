// The simulator's language model: at each position a distribution over a small vocabulary,
// derived from the prompt, the position and the previous token (so the same prompt gives
// the same distributions). Temperature 0 takes the most likely token (greedy: the same
// text whatever the seed); above 0 it samples from softmax(logits / temperature) with the
// request's random stream, so higher temperatures vary more. Logprobs are the model's
// own distribution (temperature 1), as OpenAI reports them. Text that is not free prose
// (JSON, tool arguments) is "forced": cut into tokens and given near-certain logprobs.
export const WORDS = ('the a of to and in is that for it as with on was by this be are from at or an which have not ' +
  'model token budget stream answer question simple small large cloud compute gateway ledger quota request reply ' +
  'light river stone garden window market signal system number letter music paper orange silver quiet rapid').split(' ');
const PUNCT = [',', '.', ';', ':'];

import { rng } from '../lib/prng.ts';

export { rng }; // the simulators' one PRNG (lib/prng.ts)

function mix(...xs: number[]): number {
  let h = 0x811c9dc5;
  for (const x of xs) h = Math.imul(h ^ (x >>> 0), 0x01000193) ^ (h >>> 15);
  return h >>> 0;
}

/** One token of output: its text (leading space included, as OpenAI's tokens carry it) and the model's logprobs. */
export interface Piece {
  text: string;
  logprob: number;
  /** the most likely tokens at this position, most likely first (TOP_MAX of them) */
  top: Array<{ token: string; logprob: number }>;
}

/** top_logprobs may ask for up to 20 (OpenAI's limit). */
export const TOP_MAX = 20;

/** Every 9th token is punctuation, the rest words; the vocabulary at a position is one of the two. */
function vocabularyAt(i: number, last: boolean): string[] {
  return i > 0 && i % 9 === 8 && !last ? PUNCT : WORDS;
}

/**
 * `count` tokens of prose. `temperature` 0 is greedy; `sample` is the request's random stream
 * (its seed and choice index), unused when greedy.
 */
export function prose(modelSeed: number, count: number, temperature: number, sample: () => number): Piece[] {
  const out: Piece[] = [];
  let prev = 0;
  for (let i = 0; i < count; i++) {
    const vocab = vocabularyAt(i, i === count - 1);
    const r = rng(mix(modelSeed, i, prev));
    const logits = vocab.map(() => 6 * r() ** 2);
    const max = Math.max(...logits);
    const lse = max + Math.log(logits.reduce((s, l) => s + Math.exp(l - max), 0));
    let chosen = logits.indexOf(max);
    if (temperature > 0) {
      const scaled = logits.map((l) => (l - max) / temperature);
      const weights = scaled.map(Math.exp);
      let u = sample() * weights.reduce((s, w) => s + w, 0);
      chosen = weights.length - 1;
      for (let j = 0; j < weights.length; j++) {
        u -= weights[j]!;
        if (u < 0) {
          chosen = j;
          break;
        }
      }
    }
    const spelled = (j: number) => (vocab === PUNCT || i === 0 ? vocab[j]! : ` ${vocab[j]}`);
    // The alternatives are sorted only when a caller reads them (logprobs asked for): most
    // answers never do, and sorting them was most of the simulator's time per token.
    let top: Piece['top'] | undefined;
    out.push({
      text: spelled(chosen), logprob: logits[chosen]! - lse,
      get top() {
        top ??= logits.map((l, j) => ({ token: spelled(j), logprob: l - lse })).sort((a, b) => b.logprob - a.logprob).slice(0, TOP_MAX);
        return top;
      },
    });
    prev = chosen + 1;
  }
  return out;
}

/** Fixed text cut into the simulator's tokens (each piece one token, whitespace before it kept). */
export function forced(text: string, rand: () => number): Piece[] {
  const pieces = text.match(/\s*(?:[\p{L}\p{N}_]+|[^\s\p{L}\p{N}_])/gu) ?? [];
  const tail = text.length - pieces.reduce((n, p) => n + p.length, 0);
  if (tail > 0 && pieces.length) pieces[pieces.length - 1] += text.slice(text.length - tail); // trailing whitespace rides on the last token
  return pieces.map((p) => {
    const logprob = -0.001 - rand() * 0.05;
    const alternatives = WORDS.slice(0, TOP_MAX - 1).map((w, j) => ({ token: ` ${w}`, logprob: -6 - j * 0.5 - rand() * 0.4 }));
    return { text: p, logprob, top: [{ token: p, logprob }, ...alternatives] };
  });
}

export function textOf(pieces: readonly Piece[]): string {
  let s = '';
  for (const p of pieces) s += p.text;
  return s;
}

/**
 * The pieces up to the first stop sequence (which is not part of the answer, as at OpenAI),
 * or undefined when none occurs. A piece the stop sequence starts inside keeps its text
 * before it.
 */
export function cutAtStop(pieces: readonly Piece[], stops: readonly string[]): { pieces: Piece[]; stop: string } | undefined {
  const text = textOf(pieces);
  let at = -1;
  let stop = '';
  for (const s of stops) {
    const i = s === '' ? -1 : text.indexOf(s);
    if (i >= 0 && (at < 0 || i < at)) {
      at = i;
      stop = s;
    }
  }
  if (at < 0) return undefined;
  const out: Piece[] = [];
  let pos = 0;
  for (const p of pieces) {
    if (pos >= at) break;
    const keep = Math.min(p.text.length, at - pos);
    out.push(keep === p.text.length ? p : { ...p, text: p.text.slice(0, keep) });
    pos += p.text.length;
  }
  return { pieces: out, stop };
}

function bytesOf(token: string): number[] {
  return [...Buffer.from(token, 'utf8')];
}

/** Chat logprobs (`choices[].logprobs`) of some pieces, with `k` alternatives each. */
export function chatLogprobs(pieces: readonly Piece[], k: number) {
  return {
    content: pieces.map((p) => ({
      token: p.text, logprob: p.logprob, bytes: bytesOf(p.text),
      top_logprobs: p.top.slice(0, k).map((t) => ({ token: t.token, logprob: t.logprob, bytes: bytesOf(t.token) })),
    })),
    refusal: null,
  };
}

/** Legacy completions logprobs (`logprobs: <k>`): parallel arrays; `offset` is where the first piece starts in the text. */
export function completionLogprobs(pieces: readonly Piece[], k: number, offset: number) {
  const text_offset: number[] = [];
  let at = offset;
  for (const p of pieces) {
    text_offset.push(at);
    at += p.text.length;
  }
  return {
    tokens: pieces.map((p) => p.text),
    token_logprobs: pieces.map((p) => p.logprob),
    top_logprobs: pieces.map((p) => Object.fromEntries(p.top.slice(0, k).map((t) => [t.token, t.logprob]))),
    text_offset,
  };
}

