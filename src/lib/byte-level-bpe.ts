// Counting for the tokenizer.json layout of Llama 3, Qwen and most open models since (BPE
// over a byte-level alphabet, pre-tokenized by one Split regex then ByteLevel), about twenty
// times faster than running the general library on every prompt (bench/README.md, *Named
// tokenizers*): the regex is the library's own reading of the Oniguruma pattern with its
// \p{White_Space} written as a character class (V8 runs that several times faster, same
// matches) and its repetitions bounded (bounded-pattern.ts), each pre-token is merged in
// O(n log n) (bpe-merge.ts) and short ones' counts are cached, and a long text goes by sections
// (text-sections.ts) so its normalization and the search for special tokens run a few
// thousand characters at a time. The count comes as a sequence of small pieces of work for
// sliced-count.ts to sum between turns of the event loop. Any other layout, or an option this
// does not implement, is left to the library (`byteLevelBpe` answers undefined).
import { boundedPattern } from './bounded-pattern.ts';
import { cachedCounts, mergedCount } from './bpe-merge.ts';
import { sections } from './text-sections.ts';

/** What a tokenizer.json holds that this reads. */
export interface TokenizerJson {
  added_tokens?: Array<{ content?: string; lstrip?: boolean; rstrip?: boolean; single_word?: boolean; normalized?: boolean }>;
  normalizer?: { type?: string; normalizers?: Array<{ type?: string }> } | null;
  pre_tokenizer?: {
    type?: string;
    add_prefix_space?: boolean;
    pretokenizers?: Array<{ type?: string; add_prefix_space?: boolean; use_regex?: boolean; behavior?: string; invert?: boolean }>;
  } | null;
  model?: {
    type?: string; vocab?: unknown; merges?: unknown; ignore_merges?: boolean; byte_fallback?: boolean; dropout?: unknown;
    continuing_subword_prefix?: unknown; end_of_word_suffix?: unknown;
  };
}

/** Characters of a section of a long text (text-sections.ts): its normalization and special-token search are ~0.1-0.3 ms. */
const SECTION_CHARS = 1 << 13;

/** Unicode's White_Space, which Oniguruma's \s and \p{White_Space} mean. */
const WHITE_SPACE = String.raw`\t-\r \x85\xA0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000`;

/** What counts a text under a tokenizer.json: its tokens as a sequence of small pieces of work. */
export type PieceCounts = (text: string) => Iterator<number>;

/**
 * A counter for the Split + ByteLevel BPE layout, or undefined for any other. `splitRegex` is
 * the library's translation of the Split pattern (its pre_tokenizer's first step).
 */
export function byteLevelBpe(json: TokenizerJson, splitRegex: RegExp | undefined): PieceCounts | undefined {
  const m = json.model;
  if (!supported(json) || !splitRegex || !m?.vocab || !Array.isArray(m.merges)) return undefined;
  let pattern: RegExp;
  try {
    pattern = new RegExp(boundedPattern(withWhiteSpaceClass(splitRegex.source)), 'gu');
  } catch {
    return undefined;
  }
  const vocab = new Set(Object.keys(m.vocab));
  const ranks = new Map<string, number>();
  m.merges.forEach((pair, i) => {
    const key = Array.isArray(pair) ? `${pair[0]} ${pair[1]}` : String(pair);
    if (!ranks.has(key)) ranks.set(key, i);
  });
  const piece = cachedCounts((p) => bpeCount(p, vocab, ranks, m.ignore_merges === true));
  const nfc = json.normalizer?.type === 'NFC';
  const specials = specialTokens(json);
  function* textCounts(s: string): Generator<number> {
    const text = nfc ? s.normalize('NFC') : s;
    let end = 0;
    for (const match of text.matchAll(pattern)) {
      if (match.index > end) yield* gapCounts(text.slice(end, match.index), piece); // Isolated keeps what no match covers
      if (match[0].length) yield piece(match[0]);
      end = match.index + match[0].length;
    }
    if (end < text.length) yield* gapCounts(text.slice(end), piece);
  }
  function* sectionCounts(section: string): Generator<number> {
    if (!specials) return yield* textCounts(section);
    let end = 0;
    for (const match of section.matchAll(specials.pattern)) {
      if (match.index > end) yield* textCounts(section.slice(end, match.index));
      yield 1;
      end = match.index + match[0].length;
    }
    if (end < section.length) yield* textCounts(section.slice(end));
  }
  return function* counts(text: string): Generator<number> {
    for (const section of sections(text, SECTION_CHARS, specials ? (cut) => specials.past(text, cut) : undefined)) yield* sectionCounts(section);
  };
}

/** Whether this implements every option of the file's model, normalizer, pre-tokenizer and added tokens. */
function supported(json: TokenizerJson): boolean {
  const m = json.model;
  if (m?.type !== 'BPE' || m.byte_fallback || m.dropout != null || m.continuing_subword_prefix || m.end_of_word_suffix) return false;
  if (json.normalizer && json.normalizer.type !== 'NFC') return false;
  const steps = json.pre_tokenizer?.type === 'Sequence' ? json.pre_tokenizer.pretokenizers ?? [] : [];
  const [split, byteLevel] = steps;
  if (steps.length !== 2 || split?.type !== 'Split' || split.behavior !== 'Isolated' || split.invert) return false;
  if (byteLevel?.type !== 'ByteLevel' || byteLevel.add_prefix_space || byteLevel.use_regex) return false;
  return !(json.added_tokens ?? []).some((t) => t.lstrip || t.rstrip || t.single_word || t.normalized || typeof t.content !== 'string' || !t.content);
}

/** The added tokens as one pattern, and where a section cut that would split one of them goes instead (just past it). */
function specialTokens(json: TokenizerJson): { pattern: RegExp; past(text: string, cut: number): number } | undefined {
  const added = (json.added_tokens ?? []).map((t) => t.content!);
  if (!added.length) return undefined;
  const pattern = new RegExp(added.map((c) => c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).sort((a, b) => b.length - a.length).join('|'), 'g');
  const longest = Math.max(...added.map((c) => c.length));
  return {
    pattern,
    past(text, cut) {
      const from = Math.max(0, cut - longest + 1);
      for (const m of text.slice(from, cut + longest - 1).matchAll(pattern)) {
        if (from + m.index < cut && from + m.index + m[0].length > cut) return from + m.index + m[0].length;
      }
      return cut;
    },
  };
}

/** What no match of the split pattern covers, in pieces of at most GAP_CHARS (a pattern that leaves gaps can leave long ones). */
function* gapCounts(gap: string, piece: (p: string) => number): Generator<number> {
  for (let at = 0; at < gap.length;) {
    let end = Math.min(gap.length, at + GAP_CHARS);
    const code = gap.charCodeAt(end - 1);
    if (end < gap.length && code >= 0xd800 && code <= 0xdbff) end--;
    yield piece(gap.slice(at, end));
    at = end;
  }
}

/** Characters of an unmatched stretch merged as one piece (as bounded-pattern.ts bounds a match). */
const GAP_CHARS = 512;

/** The pattern with \p{White_Space} / \P{White_Space} written out as classes (outside a class and inside one). */
function withWhiteSpaceClass(src: string): string {
  let out = '';
  let inClass = false;
  for (let i = 0; i < src.length; i++) {
    const c = src[i]!;
    if (c === '\\') {
      const m = /^\\([pP])\{White_Space\}/.exec(src.slice(i, i + 16));
      if (m && !(inClass && m[1] === 'P')) {
        out += inClass ? WHITE_SPACE : `[${m[1] === 'P' ? '^' : ''}${WHITE_SPACE}]`;
        i += m[0].length - 1;
      } else {
        out += c + (src[i + 1] ?? '');
        i++;
      }
      continue;
    }
    if (c === '[') inClass = true;
    else if (c === ']') inClass = false;
    out += c;
  }
  return out;
}

/** GPT-2's map of bytes to printable characters, the alphabet of byte-level BPE. */
const BYTE_CHARS = (() => {
  const out: string[] = new Array(256);
  let extra = 0;
  for (let b = 0; b < 256; b++) {
    const printable = (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255);
    out[b] = String.fromCodePoint(printable ? b : 256 + extra++);
  }
  return out;
})();

/** Tokens of one pre-token: its bytes as characters, merged pair by pair, lowest rank first. */
function bpeCount(p: string, vocab: Set<string>, ranks: Map<string, number>, ignoreMerges: boolean): number {
  const parts = Array.from(Buffer.from(p, 'utf8'), (b) => BYTE_CHARS[b]!);
  if (parts.length < 2) return parts.length;
  if (ignoreMerges && vocab.has(parts.join(''))) return 1;
  return mergedCount(parts, (a, b) => ranks.get(`${a} ${b}`));
}
