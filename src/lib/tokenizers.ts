// Tokenizers an operator names for a model (a catalogue upstream's `tokenizer`), so the
// gateway counts prompts exactly instead of bounding them: OpenAI's encodings by name (the
// `gpt-tokenizer` package, ranks bundled) or a Hugging Face `tokenizer.json` file (the
// `@huggingface/tokenizers` package: BPE with byte-level pre-tokenization as Llama 3 and Qwen
// use, and the other models and normalizers it implements). Both are pure JS and loaded on
// first use only (an encoding's ranks cost ~150-250 ms and ~30-60 MB to load), once per
// process: `tokenizerFor` caches the loaded tokenizer by its setting.
//
// Counting is linear in the text and never holds the event loop for long (issue 40: one
// prompt of 131,072 letters held it 17 s): both counters of our own (openai-encodings.ts,
// byte-level-bpe.ts) merge pre-tokens of bounded length in O(n log n), and a count is summed
// in slices of ~2 ms with a turn of the event loop between them (sliced-count.ts); counting
// stops once a text is past the caller's limit. The library runs a text of at most
// LIBRARY_CHARS in one call, a longer one in sections cut where its pre-tokenizer cuts anyway
// (text-sections.ts), or, for a layout that cannot be cut (SentencePiece's Metaspace, a
// Prepend or Replace normalizer, no pre-tokenizer), not at all: that count is left incomplete
// and the caller bounds it.
import { readFile } from 'node:fs/promises';
import { isAbsolute } from 'node:path';
import { byteLevelBpe, type TokenizerJson } from './byte-level-bpe.ts';
import { openaiEncoding, type EncodingName } from './openai-encodings.ts';
import { type Counted, sumSliced } from './sliced-count.ts';
import { sections } from './text-sections.ts';

export type { Counted };

/** OpenAI's encodings, by the names tiktoken gives them. */
export const OPENAI_ENCODINGS = ['r50k_base', 'p50k_base', 'p50k_edit', 'cl100k_base', 'o200k_base', 'o200k_harmony'] as const satisfies readonly EncodingName[];
export type OpenAIEncoding = (typeof OPENAI_ENCODINGS)[number];

/**
 * The library (the layouts byte-level-bpe.ts does not count) is a black box that costs
 * ~1.5 µs a character of prose and up to ~35 µs of adversarial text (one letter or space
 * repeated): it runs at most LIBRARY_CHARS in one call (~0.4 ms of prose, ≤ ~9 ms at worst),
 * sections of that size cut where the layout allows, and at most LIBRARY_TOTAL characters of a
 * text; what is past them is left uncounted (the count incomplete: the caller bounds it).
 */
export const LIBRARY_CHARS = 256;
export const LIBRARY_TOTAL = 16_384;

export interface TextTokenizer {
  /** Tokens of `text`; a long text past `limit` may be left uncounted beyond it, and the library's layouts that cannot be cut leave a text over LIBRARY_CHARS uncounted (Counted.complete). */
  count(text: string, limit: number): Counted | Promise<Counted>;
}

/** What the setting names: an OpenAI encoding, or a tokenizer.json file. */
export function tokenizerKind(spec: string): 'encoding' | 'file' | undefined {
  if ((OPENAI_ENCODINGS as readonly string[]).includes(spec)) return 'encoding';
  if (isAbsolute(spec)) return 'file';
  return undefined;
}

export const TOKENIZER_RULE = `must be one of ${OPENAI_ENCODINGS.join(', ')}, or the absolute path of a Hugging Face tokenizer.json`;

const loaded = new Map<string, Promise<TextTokenizer>>();

/**
 * The tokenizer a setting names, loaded once per process (the promise is shared while it
 * loads). A failure is kept too, so a file missing on this host is not read again on every
 * request: saving the model again (reloadTokenizer) or a restart reads it anew.
 */
export function tokenizerFor(spec: string): Promise<TextTokenizer> {
  let p = loaded.get(spec);
  if (!p) {
    p = loadTokenizer(spec);
    loaded.set(spec, p);
  }
  return p;
}

/**
 * Loads a tokenizer afresh and makes it the one `tokenizerFor` answers (the operator may have
 * replaced the file); throws an Error saying what is wrong with the setting.
 */
export async function reloadTokenizer(spec: string): Promise<TextTokenizer> {
  const p = loadTokenizer(spec);
  await p;
  loaded.set(spec, p);
  return p;
}

async function loadTokenizer(spec: string): Promise<TextTokenizer> {
  const kind = tokenizerKind(spec);
  if (kind === 'encoding') return encodingTokenizer(spec as OpenAIEncoding);
  if (kind === 'file') return fileTokenizer(spec);
  throw new Error(TOKENIZER_RULE);
}

async function encodingTokenizer(name: OpenAIEncoding): Promise<TextTokenizer> {
  const enc = await openaiEncoding(name);
  function* counts(text: string): Generator<number> {
    for (const m of text.matchAll(enc.pattern)) yield enc.count(m[0]);
  }
  return { count: (text, limit) => sumSliced(text, counts(text), limit) };
}

interface HfTokenizer {
  encode(text: string, options: { add_special_tokens: boolean }): { ids: number[] };
  /** the library's steps; a Sequence's are in `tokenizers`, a Split's regex in `pattern` */
  pre_tokenizer?: { tokenizers?: Array<{ pattern?: unknown }> } | null;
}

async function fileTokenizer(path: string): Promise<TextTokenizer> {
  let json: unknown;
  try {
    json = JSON.parse(await readFile(path, 'utf8'));
  } catch (e) {
    throw new Error(`cannot read a tokenizer.json at ${path}: ${(e as Error).message}`);
  }
  const model = (json as { model?: { type?: unknown; vocab?: unknown } } | null)?.model;
  if (!json || typeof json !== 'object' || !model || typeof model !== 'object' || !model.vocab) {
    throw new Error(`${path} is not a Hugging Face tokenizer.json (no model with a vocab)`);
  }
  const { Tokenizer } = await import('@huggingface/tokenizers');
  let tok: HfTokenizer;
  try {
    tok = new Tokenizer(json, {}) as unknown as HfTokenizer;
    tok.encode('Gantry checks this tokenizer: 123 ü 漢字\n', { add_special_tokens: false });
  } catch (e) {
    throw new Error(`${path} is not a tokenizer Gantry can run: ${(e as Error).message}`);
  }
  // Llama 3's and Qwen's layout is counted by byte-level-bpe.ts (far faster); anything else by the library.
  const split = tok.pre_tokenizer?.tokenizers?.[0]?.pattern;
  const fast = byteLevelBpe(json as TokenizerJson, split instanceof RegExp ? split : undefined);
  if (fast) return { count: (text, limit) => sumSliced(text, fast(text), limit) };
  const encode = (text: string) => tok.encode(text, { add_special_tokens: false }).ids.length;
  const sliceable = cutsAreSafe(json as TokenizerJson);
  return {
    count(text, limit) {
      if (text.length <= LIBRARY_CHARS) return { tokens: encode(text), complete: true };
      if (!sliceable) return { tokens: 0, complete: false }; // too long for one call, and no cut is safe: the caller bounds it
      const head = { whole: true };
      const c = sumSliced(text, librarySections(text, encode, head), limit);
      const mark = (r: Counted): Counted => (head.whole ? r : { tokens: r.tokens, complete: false });
      return c instanceof Promise ? c.then(mark) : mark(c);
    },
  };
}

/** The library's counts of `text` section by section, up to LIBRARY_TOTAL characters (`head.whole` false when it stopped short). */
function* librarySections(text: string, encode: (t: string) => number, head: { whole: boolean }): Generator<number> {
  let seen = 0;
  for (const s of sections(text, LIBRARY_CHARS)) {
    if (seen >= LIBRARY_TOTAL) {
      head.whole = false;
      return;
    }
    seen += s.length;
    yield encode(s);
  }
}

/**
 * Whether a text may be counted in sections (text-sections.ts: cut after a newline that a
 * non-space character follows, or before a space between letters): true for the byte-level
 * and regex-split pre-tokenizers (GPT-2, Llama 3, Qwen, cl100k patterns all end a pre-token
 * there, and BPE never merges across pre-tokens), false when the tokenizer prepends something
 * to the text (SentencePiece's Metaspace, a Prepend normalizer, ByteLevel's add_prefix_space),
 * which each section would get again, or has no pre-tokenizer (the whole text is one word).
 */
function cutsAreSafe(j: TokenizerJson): boolean {
  const pre = j.pre_tokenizer;
  const pres = pre ? (pre.type === 'Sequence' ? (pre.pretokenizers ?? []) : [pre]) : [];
  const norms = j.normalizer ? (j.normalizer.type === 'Sequence' ? (j.normalizer.normalizers ?? []) : [j.normalizer]) : [];
  if (norms.some((n) => n.type === 'Prepend' || n.type === 'Replace')) return false;
  if (pres.length === 0) return false;
  return pres.every((p) => (p.type === 'ByteLevel' && p.add_prefix_space !== true) || p.type === 'Split' || p.type === 'Digits' || p.type === 'Punctuation');
}
