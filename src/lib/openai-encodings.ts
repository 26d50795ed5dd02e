// OpenAI's encodings counted here, over the ranks and split patterns the `gpt-tokenizer`
// package ships (its `bpeRanks/*` and `encodingParams/constants` modules), with the merging
// of bpe-merge.ts: the package's own merge loop is quadratic in a pre-token's length (a
// prompt of 131,072 letters took 17 s of the event loop). The count is the package's
// (`countTokens` with special-token strings counted as text, as OpenAI's API does), which
// openai-encodings.test.ts checks on ordinary and adversarial text, except where a pre-token
// is longer than bounded-pattern.ts allows (runs of one kind of character over 256): it is
// counted in pieces, each merged alone; and a byte-order mark, which the package's decoder
// drops while it looks up merges (these bytes are merged as bytes, as tiktoken does).
import { cachedCounts, mergedCount } from './bpe-merge.ts';
import { boundedPattern } from './bounded-pattern.ts';

/** The encodings by name, each its ranks and its split pattern. */
const ENCODINGS = {
  r50k_base: { ranks: 'r50k_base', pattern: 'R50K' },
  p50k_base: { ranks: 'p50k_base', pattern: 'R50K' },
  p50k_edit: { ranks: 'p50k_base', pattern: 'R50K' },
  cl100k_base: { ranks: 'cl100k_base', pattern: 'CL100K' },
  o200k_base: { ranks: 'o200k_base', pattern: 'O200K' },
  o200k_harmony: { ranks: 'o200k_base', pattern: 'O200K' },
} as const;
export type EncodingName = keyof typeof ENCODINGS;

type Ranks = (string | number[] | undefined)[];

async function importRanks(name: (typeof ENCODINGS)[EncodingName]['ranks']): Promise<Ranks> {
  // Literal specifiers, so each encoding's ranks are read only when named.
  switch (name) {
    case 'r50k_base': return (await import('gpt-tokenizer/bpeRanks/r50k_base')).default;
    case 'p50k_base': return (await import('gpt-tokenizer/bpeRanks/p50k_base')).default;
    case 'cl100k_base': return (await import('gpt-tokenizer/bpeRanks/cl100k_base')).default;
    case 'o200k_base': return (await import('gpt-tokenizer/bpeRanks/o200k_base')).default;
  }
}

/** A counter of an encoding's pre-tokens, and its bounded split pattern (what cuts a text into them). */
export interface PreTokenCounter {
  pattern: RegExp;
  /** tokens of one pre-token */
  count(piece: string): number;
}

export async function openaiEncoding(name: EncodingName): Promise<PreTokenCounter> {
  const spec = ENCODINGS[name];
  const [ranks, constants] = await Promise.all([importRanks(spec.ranks), import('gpt-tokenizer/encodingParams/constants')]);
  const split = { R50K: constants.R50K_TOKEN_SPLIT_REGEX, CL100K: constants.CL100K_TOKEN_SPLIT_REGEX, O200K: constants.O200K_TOKEN_SPLIT_REGEX }[spec.pattern];
  const byBytes = rankTable(ranks);
  const rank = (a: string, b: string) => byBytes.get(a + b);
  const merge = (piece: string) => {
    // a pre-token's UTF-8 bytes, one character each (latin1): the table's keys
    const bytes = Buffer.from(piece, 'utf8').toString('latin1');
    if (byBytes.has(bytes)) return 1; // a whole token, as the package answers before merging
    return mergedCount(Array.from(bytes), rank);
  };
  return { pattern: new RegExp(boundedPattern(split.source), 'gu'), count: cachedCounts(merge) };
}

/** Rank by token bytes (as a latin1 string: one character a byte); a token of ASCII is its own key. */
function rankTable(ranks: Ranks): Map<string, number> {
  const m = new Map<string, number>();
  ranks.forEach((t, rank) => {
    if (t === undefined) return;
    // biome-ignore lint/suspicious/noControlCharactersInRegex: ASCII is what needs no conversion
    const key = typeof t !== 'string' ? String.fromCharCode(...t) : /^[\x00-\x7f]*$/.test(t) ? t : Buffer.from(t, 'utf8').toString('latin1');
    m.set(key, rank); // the last of equal keys, as the package's own table
  });
  return m;
}
