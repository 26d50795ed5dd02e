// One rate window of the in-process counters (memory.ts): the requests admitted within the
// last window, oldest first, as two numbers each in ring buffers (16 bytes a request). A Map
// of request ids held ~260 bytes a request for a whole window (~150 with flat ids, lib/ids.ts):
// at 5,000 requests a second, ~77 MB kept for a minute, then collected by the old generation's
// GC (bench/gateway/rate-window.ts; what it did to the server under load: bench/README.md).
// Only the requests not yet settled keep their id, to put their real token count in; with
// `keepIds` (the Redis counters' mirror, which puts entries back by id after Redis lost them)
// every entry keeps it, as a flat string in an array beside the numbers.

export class RateLog {
  private at = new Float64Array(64);
  private tok = new Float64Array(64);
  private ids: string[] | undefined;
  /** slot of the oldest entry */
  private head = 0;
  /** sequence number of the oldest entry (each admission gets the next) */
  private first = 0;
  size = 0;
  tokens = 0;
  /** admitted, not yet settled: request id → sequence number */
  private readonly open = new Map<string, number>();

  constructor(opts: { keepIds?: boolean } = {}) {
    if (opts.keepIds) this.ids = new Array<string>(64).fill('');
  }

  /** Drop the entries admitted at or before `atOrBefore` (they left the window). */
  evict(atOrBefore: number): void {
    const mask = this.at.length - 1;
    while (this.size > 0 && this.at[this.head]! <= atOrBefore) {
      this.tokens -= this.tok[this.head]!;
      if (this.ids) this.ids[this.head] = '';
      this.head = (this.head + 1) & mask;
      this.size--;
      this.first++;
    }
    // a request never settled (its holder died) must not keep its id for ever
    if (this.open.size > this.size) for (const [id, seq] of this.open) if (seq < this.first) this.open.delete(id);
    // what a burst grew is given back once the window is quiet again
    if (this.at.length > 64 && this.size < this.at.length >> 2) this.resize(this.at.length >> 1);
  }

  add(requestId: string, atMs: number, tokens: number): void {
    if (this.size === this.at.length) this.resize(this.at.length * 2);
    const i = (this.head + this.size) & (this.at.length - 1);
    this.at[i] = atMs;
    this.tok[i] = tokens;
    if (this.ids) this.ids[i] = requestId;
    this.open.set(requestId, this.first + this.size);
    this.size++;
    this.tokens += tokens;
  }

  /** The request's real token count replaces its estimate, if it is still in the window. */
  settle(requestId: string, tokensUsed: number): void {
    const seq = this.open.get(requestId);
    if (seq === undefined) return;
    this.open.delete(requestId);
    if (seq < this.first) return; // it left the window already
    const i = (this.head + (seq - this.first)) & (this.at.length - 1);
    this.tokens += tokensUsed - this.tok[i]!;
    this.tok[i] = tokensUsed;
  }

  /** When the oldest entry was admitted (undefined: empty). */
  oldestAt(): number | undefined {
    return this.size > 0 ? this.at[this.head] : undefined;
  }

  /** Oldest first; `id` only with keepIds. */
  *entries(): Generator<{ atMs: number; tokens: number; id: string }> {
    const mask = this.at.length - 1;
    for (let k = 0; k < this.size; k++) {
      const i = (this.head + k) & mask;
      yield { atMs: this.at[i]!, tokens: this.tok[i]!, id: this.ids?.[i] ?? '' };
    }
  }

  private resize(capacity: number): void {
    const n = this.at.length;
    const at = new Float64Array(capacity);
    const tok = new Float64Array(capacity);
    const ids = this.ids ? new Array<string>(capacity).fill('') : undefined;
    for (let k = 0; k < this.size; k++) {
      const i = (this.head + k) & (n - 1);
      at[k] = this.at[i]!;
      tok[k] = this.tok[i]!;
      if (ids) ids[k] = this.ids![i]!;
    }
    this.at = at;
    this.tok = tok;
    this.ids = ids;
    this.head = 0;
  }
}
