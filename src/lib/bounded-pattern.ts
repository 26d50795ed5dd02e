// A pre-tokenizer's split pattern with every unbounded repetition bounded (`x+` → `x{1,256}`,
// `x*` → `x{0,256}`, `x{n,}` → `x{n,256}`): a pre-token is then at most a few hundred
// characters, so no single match of the pattern, nor the merging of one pre-token, is a long
// piece of work, however the text is made (one match over 131,072 CJK characters took 25 ms
// of the event loop, over a few million it overflowed the regex engine's stack). A run of one
// kind of character longer than that (letters, digits in r50k, spaces, punctuation) becomes
// several pre-tokens of at most MAX_REPEAT characters: counted in pieces, a few tokens more
// or less than whole. Real text has no such runs (bench/README.md, *Named tokenizers*).

/** Characters a repetition of the pattern may take. */
export const MAX_REPEAT = 256;

/** `source` (a regular expression's, `u` flag) with its `+`, `*` and `{n,}` bounded at MAX_REPEAT. */
export function boundedPattern(source: string, max = MAX_REPEAT): string {
  let out = '';
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    if (c === '\\') {
      const esc = /^\\[pPu]\{[^}]*\}/.exec(source.slice(i, i + 64))?.[0] ?? source.slice(i, i + 2);
      out += esc;
      i += esc.length - 1;
    } else if (inClass) {
      out += c;
      if (c === ']') inClass = false;
    } else if (c === '[') {
      inClass = true;
      out += c;
    } else if (c === '+' || c === '*') {
      out += `{${c === '+' ? 1 : 0},${max}}`;
    } else if (c === '{' && /^\{\d+,\}/.test(source.slice(i))) {
      const from = /^\{(\d+),\}/.exec(source.slice(i))!;
      out += `{${from[1]},${Math.max(max, Number(from[1]))}}`;
      i += from[0].length - 1;
    } else {
      out += c;
    }
  }
  return out;
}
