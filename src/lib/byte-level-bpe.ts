// Counting for the tokenizer.json layout of Llama 3, Qwen and most open models since (BPE
// over a byte-level alphabet, pre-tokenized by one Split regex then ByteLevel), about twenty
// times faster than running the general library on every prompt (bench/README.md, *Named
// tokenizers*): the regex is the library's own reading of the Oniguruma pattern with its
// \p{White_Space} written as a character class (V8 runs that several times faster, same
// matches), and each pre-token's count is cached. Any other layout, or an option this does
// not implement, is left to the library (`byteLevelBpe` answers undefined).

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

/** Pre-token counts kept per tokenizer; the cache is emptied when full (prompts repeat most words). */
const CACHE_ENTRIES = 1 << 16;

/** Unicode's White_Space, which Oniguruma's \s and \p{White_Space} mean. */
const WHITE_SPACE = String.raw`\t-\r \x85\xA0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000`;

/**
 * A counter for the Split + ByteLevel BPE layout, or undefined for any other. `splitRegex` is
 * the library's translation of the Split pattern (its pre_tokenizer's first step).
 */
export function byteLevelBpe(json: TokenizerJson, splitRegex: RegExp | undefined): ((text: string) => number) | undefined {
  const m = json.model;
  if (m?.type !== 'BPE' || m.byte_fallback || m.dropout != null || m.continuing_subword_prefix || m.end_of_word_suffix) return undefined;
  if (!m.vocab || typeof m.vocab !== 'object' || !Array.isArray(m.merges)) return undefined;
  const norm = json.normalizer;
  if (norm && norm.type !== 'NFC') return undefined;
  const steps = json.pre_tokenizer?.type === 'Sequence' ? json.pre_tokenizer.pretokenizers ?? [] : [];
  const [split, byteLevel] = steps;
  if (steps.length !== 2 || split?.type !== 'Split' || split.behavior !== 'Isolated' || split.invert) return undefined;
  if (byteLevel?.type !== 'ByteLevel' || byteLevel.add_prefix_space || byteLevel.use_regex) return undefined;
  const added = json.added_tokens ?? [];
  if (added.some((t) => t.lstrip || t.rstrip || t.single_word || t.normalized || typeof t.content !== 'string' || !t.content)) return undefined;
  if (!splitRegex) return undefined;
  let pattern: RegExp;
  try {
    pattern = new RegExp(withWhiteSpaceClass(splitRegex.source), 'gu');
  } catch {
    return undefined;
  }
  const vocab = new Set(Object.keys(m.vocab));
  const ranks = new Map<string, number>();
  m.merges.forEach((pair, i) => {
    const key = Array.isArray(pair) ? `${pair[0]} ${pair[1]}` : String(pair);
    if (!ranks.has(key)) ranks.set(key, i);
  });
  const specials = added.length ? new RegExp(added.map((t) => t.content!.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).sort((a, b) => b.length - a.length).join('|'), 'g') : undefined;
  const cache = new Map<string, number>();
  const piece = (p: string): number => {
    let n = cache.get(p);
    if (n === undefined) {
      n = bpeCount(p, vocab, ranks, m.ignore_merges === true);
      if (cache.size >= CACHE_ENTRIES) cache.clear();
      cache.set(p, n);
    }
    return n;
  };
  const section = (s: string): number => {
    const text = norm ? s.normalize('NFC') : s;
    let n = 0;
    let end = 0;
    for (const match of text.matchAll(pattern)) {
      if (match.index > end) n += piece(text.slice(end, match.index)); // Isolated keeps what no match covers
      if (match[0].length) n += piece(match[0]);
      end = match.index + match[0].length;
    }
    return end < text.length ? n + piece(text.slice(end)) : n;
  };
  return (text) => {
    if (!specials) return section(text);
    let n = 0;
    let end = 0;
    for (const match of text.matchAll(specials)) {
      if (match.index > end) n += section(text.slice(end, match.index));
      n++;
      end = match.index + match[0].length;
    }
    return end < text.length ? n + section(text.slice(end)) : n;
  };
}

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
  if (parts.length < 2 || (ignoreMerges && vocab.has(parts.join('')))) return parts.length < 2 ? parts.length : 1;
  for (;;) {
    let best = -1;
    let bestRank = Number.POSITIVE_INFINITY;
    for (let i = 0; i + 1 < parts.length; i++) {
      const r = ranks.get(`${parts[i]} ${parts[i + 1]}`);
      if (r !== undefined && r < bestRank) {
        bestRank = r;
        best = i;
      }
    }
    if (best === -1) return parts.length;
    parts.splice(best, 2, parts[best]! + parts[best + 1]!);
  }
}
