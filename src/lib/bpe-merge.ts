// Byte-pair merging in O(n log n), for the tokenizers that count prompts (openai-encodings.ts,
// byte-level-bpe.ts). The textbook loop (find the lowest-ranked neighbouring pair, merge it,
// scan again) is O(n²) per pre-token: 131,072 letters without a space held the event loop
// for 17 s, 32 KiB of one letter 36 s (issue 40). Here the pairs wait in a binary heap
// ordered by (rank, position), the parts are a linked list, and a pair whose parts changed
// since it was queued is skipped when it comes up, so each merge costs O(log n); the result is
// the loop's exactly: the lowest rank first, the leftmost of equal ranks first.

/**
 * How many parts `symbols` leaves once no neighbouring pair can merge: `rank(a, b)` is the
 * rank of merging part a with the part after it (lower merges first), undefined when they
 * never merge; a merged part is the two strings joined.
 */
export function mergedCount(symbols: string[], rank: (a: string, b: string) => number | undefined): number {
  const n = symbols.length;
  if (n < 2) return n;
  const parts = symbols.slice();
  const next = new Int32Array(n);
  const prev = new Int32Array(n);
  /** the rank of the pair starting at i, as queued (Infinity: none) */
  const pairRank = new Float64Array(n).fill(Number.POSITIVE_INFINITY);
  const heap = new PairHeap(n);
  for (let i = 0; i < n; i++) {
    next[i] = i + 1 < n ? i + 1 : -1;
    prev[i] = i - 1;
  }
  const queue = (i: number) => {
    const j = next[i]!;
    const r = j === -1 ? undefined : rank(parts[i]!, parts[j]!);
    pairRank[i] = r ?? Number.POSITIVE_INFINITY;
    if (r !== undefined) heap.push(r, i);
  };
  for (let i = 0; i + 1 < n; i++) queue(i);
  let count = n;
  while (heap.size > 0) {
    const [r, i] = heap.pop();
    if (pairRank[i] !== r || parts[i] === undefined) continue; // its parts changed since
    const j = next[i]!;
    parts[i] = parts[i]! + parts[j]!;
    parts[j] = undefined as unknown as string;
    next[i] = next[j]!;
    if (next[i] !== -1) prev[next[i]!] = i;
    count--;
    queue(i);
    if (prev[i] !== -1) queue(prev[i]!);
  }
  return count;
}

/** A min-heap of (rank, position) pairs, packed as rank × 2^26 + position in one float. */
class PairHeap {
  private readonly keys: Float64Array;
  size = 0;

  constructor(positions: number) {
    if (positions >= 2 ** 26) throw new RangeError(`at most ${2 ** 26} symbols`);
    // each merge queues at most two pairs, and there are fewer merges than symbols
    this.keys = new Float64Array(3 * positions + 1);
  }

  push(rank: number, position: number): void {
    const keys = this.keys;
    let at = this.size++;
    const key = rank * 2 ** 26 + position;
    while (at > 0) {
      const up = (at - 1) >> 1;
      if (keys[up]! <= key) break;
      keys[at] = keys[up]!;
      at = up;
    }
    keys[at] = key;
  }

  pop(): [rank: number, position: number] {
    const keys = this.keys;
    const top = keys[0]!;
    const last = keys[--this.size]!;
    let at = 0;
    for (;;) {
      let child = 2 * at + 1;
      if (child >= this.size) break;
      if (child + 1 < this.size && keys[child + 1]! < keys[child]!) child++;
      if (keys[child]! >= last) break;
      keys[at] = keys[child]!;
      at = child;
    }
    keys[at] = last;
    const rank = Math.floor(top / 2 ** 26);
    return [rank, top - rank * 2 ** 26];
  }
}

/** Pre-token counts kept per tokenizer; emptied when full (prompts repeat most words). */
const CACHE_ENTRIES = 1 << 16;
/** Only short pre-tokens are kept: a long one rarely comes again, and 65,536 of them would be megabytes. */
const CACHE_CHARS = 32;

/** `count` with the counts of short pre-tokens remembered. */
export function cachedCounts(count: (piece: string) => number): (piece: string) => number {
  const cache = new Map<string, number>();
  return (piece) => {
    let n = cache.get(piece);
    if (n !== undefined) return n;
    n = count(piece);
    if (piece.length <= CACHE_CHARS) {
      if (cache.size >= CACHE_ENTRIES) cache.clear();
      cache.set(piece, n);
    }
    return n;
  };
}
