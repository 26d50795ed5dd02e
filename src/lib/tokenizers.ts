// Tokenizers an operator names for a model (a catalogue upstream's `tokenizer`), so the
// gateway counts prompts exactly instead of bounding them: OpenAI's encodings by name (the
// `gpt-tokenizer` package, ranks bundled) or a Hugging Face `tokenizer.json` file (the
// `@huggingface/tokenizers` package: BPE with byte-level pre-tokenization as Llama 3 and Qwen
// use, and the other models and normalizers it implements). Both are pure JS and loaded on
// first use only (an encoding's ranks cost ~150-250 ms and ~30-60 MB to load), once per
// process: `tokenizerFor` caches the loaded tokenizer by its setting.
//
// Counting never holds the event loop for long: texts longer than SLICE characters are
// counted in pieces with a turn of the loop between them (an encoding pre-token by pre-token;
// a tokenizer.json in pieces cut where its pre-tokenizer splits anyway, see `cutPoints`), and
// counting stops once a text is past the caller's limit (the context rule needs no more).
import { readFile } from 'node:fs/promises';
import { isAbsolute } from 'node:path';
import { setImmediate as turn } from 'node:timers/promises';
import { byteLevelBpe, type TokenizerJson } from './byte-level-bpe.ts';

/** OpenAI's encodings, by the names tiktoken gives them. */
export const OPENAI_ENCODINGS = ['r50k_base', 'p50k_base', 'p50k_edit', 'cl100k_base', 'o200k_base', 'o200k_harmony'] as const;
export type OpenAIEncoding = (typeof OPENAI_ENCODINGS)[number];

/** Characters (or, for an encoding, tokens / 4) counted between two turns of the event loop. */
const SLICE = 1 << 17;

/** A count of tokens: `complete` false when counting stopped past the caller's limit (then a lower bound above it). */
export interface Counted {
  tokens: number;
  complete: boolean;
}

export interface TextTokenizer {
  /** Tokens of `text`; a long text past `limit` may be left uncounted beyond it (Counted.complete). */
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

interface Encoding {
  countTokens(text: string, options: object): number;
  encodeGenerator(text: string, options: object): Generator<number[], number, undefined>;
}

async function importEncoding(name: OpenAIEncoding): Promise<Encoding> {
  // Literal specifiers, so each encoding's module (and its ranks) is read only when named.
  switch (name) {
    case 'r50k_base': return (await import('gpt-tokenizer/encoding/r50k_base')).default;
    case 'p50k_base': return (await import('gpt-tokenizer/encoding/p50k_base')).default;
    case 'p50k_edit': return (await import('gpt-tokenizer/encoding/p50k_edit')).default;
    case 'cl100k_base': return (await import('gpt-tokenizer/encoding/cl100k_base')).default;
    case 'o200k_base': return (await import('gpt-tokenizer/encoding/o200k_base')).default;
    case 'o200k_harmony': return (await import('gpt-tokenizer/encoding/o200k_harmony')).default;
  }
}

/** Special-token strings in a prompt are counted as the text they are (as OpenAI's API does), never refused. */
const AS_TEXT = { disallowedSpecial: new Set<string>() };

async function encodingTokenizer(name: OpenAIEncoding): Promise<TextTokenizer> {
  const enc = await importEncoding(name);
  return {
    count(text, limit) {
      if (text.length <= SLICE) return { tokens: enc.countTokens(text, AS_TEXT), complete: true };
      return countPreTokens(enc.encodeGenerator(text, AS_TEXT), limit);
    },
  };
}

/** A long text, pre-token by pre-token, with a turn of the event loop every SLICE / 4 tokens. */
async function countPreTokens(pieces: Iterator<number[]>, limit: number): Promise<Counted> {
  let n = 0;
  let sinceTurn = 0;
  for (let r = pieces.next(); !r.done; r = pieces.next()) {
    n += r.value.length;
    if (n > limit) return { tokens: n, complete: false };
    sinceTurn += r.value.length;
    if (sinceTurn >= SLICE / 4) {
      sinceTurn = 0;
      await turn();
    }
  }
  return { tokens: n, complete: true };
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
  const sliceable = cutsAreSafe(json as TokenizerJson);
  // Llama 3's and Qwen's layout is counted by byte-level-bpe.ts (far faster); anything else by the library.
  const split = tok.pre_tokenizer?.tokenizers?.[0]?.pattern;
  const whole = byteLevelBpe(json as TokenizerJson, split instanceof RegExp ? split : undefined)
    ?? ((text: string) => tok.encode(text, { add_special_tokens: false }).ids.length);
  return {
    count(text, limit) {
      if (text.length <= SLICE || !sliceable) return { tokens: whole(text), complete: true };
      return countInPieces(text, whole, limit);
    },
  };
}

/**
 * Whether a text may be counted in pieces cut after a newline that a non-space character
 * follows: true for the byte-level and regex-split pre-tokenizers (GPT-2, Llama 3, Qwen, cl100k
 * patterns all end a pre-token there, and BPE never merges across pre-tokens), false when the
 * tokenizer prepends something to the text (SentencePiece's Metaspace, a Prepend normalizer,
 * ByteLevel's add_prefix_space), which each piece would get again.
 */
function cutsAreSafe(j: TokenizerJson): boolean {
  const pre = j.pre_tokenizer;
  const pres = pre ? (pre.type === 'Sequence' ? (pre.pretokenizers ?? []) : [pre]) : [];
  const norms = j.normalizer ? (j.normalizer.type === 'Sequence' ? (j.normalizer.normalizers ?? []) : [j.normalizer]) : [];
  if (norms.some((n) => n.type === 'Prepend' || n.type === 'Replace')) return false;
  if (pres.length === 0) return false;
  return pres.every((p) => (p.type === 'ByteLevel' && p.add_prefix_space !== true) || p.type === 'Split' || p.type === 'Digits' || p.type === 'Punctuation');
}

/** A long text counted in pieces of about SLICE characters (cutPoints), a turn of the loop between them. */
async function countInPieces(text: string, whole: (t: string) => number, limit: number): Promise<Counted> {
  let n = 0;
  let from = 0;
  for (const at of cutPoints(text)) {
    n += whole(text.slice(from, at));
    from = at;
    if (n > limit) return { tokens: n, complete: false };
    await turn();
  }
  return { tokens: n + whole(text.slice(from)), complete: true };
}

/** Positions at least SLICE characters apart just after a newline followed by a non-space character. */
function* cutPoints(text: string): Generator<number> {
  let from = SLICE;
  while (from < text.length) {
    let at = text.indexOf('\n', from);
    while (at !== -1 && at + 1 < text.length && /\s/.test(text[at + 1]!)) at = text.indexOf('\n', at + 1);
    if (at === -1 || at + 1 >= text.length) return;
    yield at + 1;
    from = at + 1 + SLICE;
  }
}
