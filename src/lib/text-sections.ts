// A long text cut into sections a tokenizer counts one by one with the same total, so that
// what runs over a whole text (its normalization, the search for special tokens, a library's
// encode) runs over a few thousand characters at a time: cut just after a newline that a
// non-white-space character follows (the byte-level and regex-split pre-tokenizers of GPT-2,
// Llama 3, Qwen and OpenAI's encodings all end a pre-token there; NFC never joins across a
// newline), else before a space between two letters (a pre-token ends at the letter; the
// space begins the next). A stretch with neither is one run of letters, spaces or symbols
// (or CJK without punctuation) longer than half a section: it is cut at the section's end,
// never inside a surrogate pair, and counted in pieces, as bounded-pattern.ts cuts such runs.

/**
 * `text` in sections of at most `max` characters, each but the last longer than `max / 2`.
 * `keep(cut)` may move a cut later (past a special token it would split); it must stay within the text.
 */
export function* sections(text: string, max: number, keep: (cut: number) => number = (c) => c): Generator<string> {
  let from = 0;
  while (text.length - from > max) {
    const cut = keep(cutBetween(text, from + (max >> 1), from + max));
    yield text.slice(from, cut);
    from = cut;
  }
  yield text.slice(from);
}

const WHITE = /\s/;
const LETTER_BEFORE = /\p{L}$/u;
const LETTER_AFTER = /^\p{L}/u;

/** A cut in [lo, hi]: the latest of the kinds above, else hi (never between a surrogate pair's halves). */
function cutBetween(text: string, lo: number, hi: number): number {
  for (let at = text.lastIndexOf('\n', hi - 2); at >= lo - 1 && at !== -1; at = text.lastIndexOf('\n', at - 1)) {
    if (!WHITE.test(text[at + 1]!)) return at + 1;
  }
  for (let at = text.lastIndexOf(' ', hi - 1); at >= lo && at !== -1; at = text.lastIndexOf(' ', at - 1)) {
    if (LETTER_BEFORE.test(text.slice(Math.max(0, at - 2), at)) && LETTER_AFTER.test(text.slice(at + 1, at + 3))) return at;
  }
  const code = text.charCodeAt(hi - 1);
  return code >= 0xd800 && code <= 0xdbff ? hi - 1 : hi;
}
