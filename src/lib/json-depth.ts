// The nesting limit of every JSON document a client sends (request bodies, batch lines, the
// JSON Schemas of tools and response formats). JSON.parse itself is iterative, but what
// comes after it is not: JSON.stringify, structured clone (the parser thread's answer), ajv
// and our own walks recurse, and a body of 3.5M `[` overflowed their stacks (a 500, or the
// shared parsing thread dead with every body it held). 128 is serde_json's default; real
// payloads are far shallower (OpenAI's structured outputs take 10 levels of schema nesting,
// about 25 levels of JSON with the body around them).
export const MAX_JSON_DEPTH = 128;
export const JSON_DEPTH_RULE = `JSON nesting depth at most ${MAX_JSON_DEPTH}`;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * True when the JSON text nests arrays and objects deeper than `limit`. One pass that stops
 * at the limit; strings are skipped with indexOf (native), so a prompt costs little more than
 * its punctuation. Text that is not JSON gives an answer of no meaning: JSON.parse judges it.
 */
export function jsonTooDeep(text: string, limit = MAX_JSON_DEPTH): boolean {
  const n = text.length;
  // deeper than `limit` takes limit + 1 openings and as many closings: shorter valid JSON cannot be
  if (n < 2 * (limit + 1)) return false;
  let depth = 0;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      // to the closing quote: one preceded by an even number of backslashes
      let j = i;
      for (;;) {
        j = text.indexOf('"', j + 1);
        if (j < 0) return false;
        let k = j - 1;
        while (text.charCodeAt(k) === BACKSLASH) k--;
        if ((j - k) % 2 === 1) break;
      }
      i = j;
    } else if (c === 0x5b || c === 0x7b) { // [ {
      if (++depth > limit) return true;
    } else if (c === 0x5d || c === 0x7d) { // ] }
      depth--;
    }
  }
  return false;
}

/** True when a parsed value nests arrays and objects deeper than `limit` (a walk that stops at the limit). */
export function valueTooDeep(value: unknown, limit = MAX_JSON_DEPTH): boolean {
  if (value === null || typeof value !== 'object') return false;
  const stack: unknown[] = [value];
  const depths: number[] = [1];
  while (stack.length) {
    const v = stack.pop() as object;
    const d = depths.pop()!;
    if (d > limit) return true;
    for (const key in v) {
      const child = (v as Record<string, unknown>)[key];
      if (child !== null && typeof child === 'object') {
        stack.push(child);
        depths.push(d + 1);
      }
    }
  }
  return false;
}
