// Counting that never holds the event loop for long: a count is a sum of small pieces of work
// (a pre-token's tokens, a section's), and the sum turns the event loop whenever SLICE_MS of
// it has run, so another request waits at most about that long however long the text is. A
// text counted within the first slice is counted synchronously (no promise, no turn). A long
// text stops once past the caller's limit (the context rule needs no more).
import { setImmediate as turn } from 'node:timers/promises';

/** Milliseconds of counting between two turns of the event loop. */
export const SLICE_MS = 2;

/** A count of tokens: `complete` false when counting stopped before the end (then a lower bound: above the limit, or the tokens counted so far). */
export interface Counted {
  tokens: number;
  complete: boolean;
}

/**
 * Texts up to this many characters are counted to the end whatever the limit, so that a
 * refusal can say how many tokens they are; a longer one stops once past the limit.
 */
export const COUNTED_WHOLE_CHARS = 1 << 17;

/** The sum of `counts` (each a small piece of work) for `text`, stopping past `limit` when the text is long. */
export function sumSliced(text: string, counts: Iterator<number>, limit: number): Counted | Promise<Counted> {
  if (text.length <= COUNTED_WHOLE_CHARS) limit = Number.POSITIVE_INFINITY;
  let n = 0;
  const slice = (): Counted | undefined => {
    const start = performance.now();
    for (let i = 1; ; i++) {
      const r = counts.next();
      if (r.done) return { tokens: n, complete: true };
      n += r.value;
      if (n > limit) return { tokens: n, complete: false };
      if ((i & 7) === 0 && performance.now() - start > SLICE_MS) return undefined;
    }
  };
  const first = slice();
  if (first) return first;
  return (async () => {
    for (;;) {
      await turn();
      const r = slice();
      if (r) return r;
    }
  })();
}
