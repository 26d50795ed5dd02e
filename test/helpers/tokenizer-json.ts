// Hugging Face tokenizer.json files for tests and benches, made here (nothing is downloaded):
//  - `cl100kTokenizerJson`: OpenAI's cl100k_base (the ranks `gpt-tokenizer` ships) written as
//    a byte-level BPE tokenizer.json, the way Llama 3's and Qwen's are laid out (a Split
//    pre-tokenizer with the GPT-4 pattern, then ByteLevel; vocab and merges), so counts from
//    the file can be checked against the encoding itself. The merges are recovered from the
//    ranks as the tiktoken-to-Hugging-Face converters do: a token's merge is the last step of
//    byte pair encoding its bytes with the ranks below its own.
//  - `tinyTokenizerJson`: a few merges over the byte alphabet, for tests that need a file
//    fast and counts they can reason about.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/** GPT-2's reversible map of bytes to printable characters (byte-level BPE's alphabet). */
function byteToChar(): string[] {
  const keep: number[] = [];
  for (let b = 33; b <= 126; b++) keep.push(b);
  for (let b = 161; b <= 172; b++) keep.push(b);
  for (let b = 174; b <= 255; b++) keep.push(b);
  const out: string[] = new Array(256);
  let extra = 0;
  for (let b = 0; b < 256; b++) out[b] = String.fromCodePoint(keep.includes(b) ? b : 256 + extra++);
  return out;
}

const GPT4_SPLIT = String.raw`(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`;

function byteLevelJson(vocab: Record<string, number>, merges: string[], addedTokens: Array<{ id: number; content: string }>) {
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: addedTokens.map((t) => ({ ...t, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true })),
    normalizer: null,
    pre_tokenizer: {
      type: 'Sequence',
      pretokenizers: [
        { type: 'Split', pattern: { Regex: GPT4_SPLIT }, behavior: 'Isolated', invert: false },
        { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: false },
      ],
    },
    post_processor: { type: 'ByteLevel', add_prefix_space: true, trim_offsets: false, use_regex: true },
    decoder: { type: 'ByteLevel', add_prefix_space: true, trim_offsets: true, use_regex: true },
    model: { type: 'BPE', dropout: null, unk_token: null, continuing_subword_prefix: null, end_of_word_suffix: null, fuse_unk: false, byte_fallback: false, ignore_merges: false, vocab, merges },
  };
}

let cl100k: object | undefined;

/** cl100k_base as a tokenizer.json object (made once per process: about a second). */
export function cl100kTokenizerJson(): object {
  if (cl100k) return cl100k;
  const require = createRequire(import.meta.url);
  const file = require.resolve('gpt-tokenizer/data/cl100k_base.tiktoken');
  const chars = byteToChar();
  const ranks = new Map<string, number>(); // latin1 string of the token's bytes → rank
  const tokens: Buffer[] = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line) continue;
    const [b64, rank] = line.split(' ');
    const bytes = Buffer.from(b64!, 'base64');
    ranks.set(bytes.toString('latin1'), Number(rank));
    tokens[Number(rank)] = bytes;
  }
  const vocab: Record<string, number> = {};
  const merges: string[] = [];
  const show = (s: string) => Array.from(Buffer.from(s, 'latin1'), (b) => chars[b]).join('');
  tokens.forEach((bytes, rank) => {
    const s = bytes.toString('latin1');
    vocab[show(s)] = rank;
    if (bytes.length < 2) return;
    let parts = Array.from(s);
    for (;;) {
      let best = -1;
      let bestRank = rank;
      for (let i = 0; i + 1 < parts.length; i++) {
        const r = ranks.get(parts[i]! + parts[i + 1]!);
        if (r !== undefined && r < bestRank) {
          bestRank = r;
          best = i;
        }
      }
      if (best === -1) break;
      parts = [...parts.slice(0, best), parts[best]! + parts[best + 1]!, ...parts.slice(best + 2)];
    }
    if (parts.length === 2) merges.push(`${show(parts[0]!)} ${show(parts[1]!)}`);
  });
  cl100k = byteLevelJson(vocab, merges, [{ id: 100257, content: '<|endoftext|>' }]);
  return cl100k;
}

/**
 * A small byte-level BPE: the 256 byte characters, then merges that make "Ġgantry",
 * "gantry" and "Ġtoken" single tokens. "gantry token gantry" is 3 tokens; any other
 * character is one token a byte.
 */
export function tinyTokenizerJson(): object {
  const chars = byteToChar();
  const vocab: Record<string, number> = {};
  chars.forEach((c, i) => { vocab[c] = i; });
  const merges: string[] = [];
  const learn = (word: string) => {
    let acc = word[0]!;
    for (const c of word.slice(1)) {
      merges.push(`${acc} ${c}`);
      acc += c;
      if (vocab[acc] === undefined) vocab[acc] = Object.keys(vocab).length;
    }
  };
  for (const w of ['Ġgantry', 'Ġtoken', 'gantry']) learn(w); // the Ġ words first: their merges must outrank "g a"
  return byteLevelJson(vocab, merges, []);
}
