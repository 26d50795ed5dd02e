// One rate window of the in-process counters (memory.ts): the requests admitted within the
// last window, oldest first, as two numbers each in ring buffers (16 bytes a request). A Map
// of request ids held ~260 bytes a request for a whole window (~150 with flat ids, lib/ids.ts):
// at 5,000 requests a second, ~77 MB kept for a minute, then collected by the old generation's
// GC (bench/gateway/rate-window.ts; what it did to the server under load: bench/README.md).
// Only the requests not yet settled keep their id, to put their real token count in; with
// `keepIds` (the Redis counters' mirror, which puts entries back by id after Redis lost them)
// every entry keeps it, as a flat string in an array beside the numbers.
//
// Entry number `seq` (each admission takes the next) lives in slot `seq & (capacity - 1)`;
// a window with nothing in it holds no buffers at all (there is one window per team and model,
// and most are idle at any moment).

const NONE = new Float64Array(0);
const MIN_CAPACITY = 8;

export class RateLog {
  private at = NONE;
  private tok = NONE;
  private ids: string[] | undefined;
  /** number of the oldest entry */
  private first = 0;
  size = 0;
  tokens = 0;
  /** admitted, not yet settled: request id → entry number */
  private readonly open = new Map<string, number>();

  constructor(opts: { keepIds?: boolean } = {}) {
    if (opts.keepIds) this.ids = [];
  }

  /** Drop the entries admitted at or before `atOrBefore` (they left the window). */
  evict(atOrBefore: number): void {
    const mask = this.at.length - 1;
    while (this.size > 0 && this.at[this.first & mask]! <= atOrBefore) {
      this.tokens -= this.tok[this.first & mask]!;
      if (this.ids) this.ids[this.first & mask] = '';
      this.first++;
      this.size--;
    }
    // a request never settled (its holder died) must not keep its id for ever
    if (this.open.size > this.size) for (const [id, seq] of this.open) if (seq < this.first) this.open.delete(id);
    // what a burst grew is given back once the window is quiet again; an empty one keeps nothing
    if (this.size === 0 && this.at.length > 0) this.resize(0);
    else if (this.at.length > MIN_CAPACITY && this.size < this.at.length >> 2) this.resize(this.at.length >> 1);
  }

  add(requestId: string, atMs: number, tokens: number): void {
    if (this.size === this.at.length) this.resize(Math.max(MIN_CAPACITY, this.at.length * 2));
    const seq = this.first + this.size;
    const i = seq & (this.at.length - 1);
    this.at[i] = atMs;
    this.tok[i] = tokens;
    if (this.ids) this.ids[i] = requestId;
    this.open.set(requestId, seq);
    this.size++;
    this.tokens += tokens;
  }

  /** The request's real token count replaces its estimate, if it is still in the window. */
  settle(requestId: string, tokensUsed: number): void {
    const seq = this.open.get(requestId);
    if (seq === undefined) return;
    this.open.delete(requestId);
    if (seq < this.first) return; // it left the window already
    const i = seq & (this.at.length - 1);
    this.tokens += tokensUsed - this.tok[i]!;
    this.tok[i] = tokensUsed;
  }

  /** When the oldest entry was admitted (undefined: empty). */
  oldestAt(): number | undefined {
    return this.size > 0 ? this.at[this.first & (this.at.length - 1)] : undefined;
  }

  /** Oldest first; `id` only with keepIds. */
  *entries(): Generator<{ atMs: number; tokens: number; id: string }> {
    const mask = this.at.length - 1;
    for (let seq = this.first; seq < this.first + this.size; seq++) {
      const i = seq & mask;
      yield { atMs: this.at[i]!, tokens: this.tok[i]!, id: this.ids?.[i] ?? '' };
    }
  }

  /** Entry numbers stay; their slots move to the new capacity (a power of two, or 0 when empty). */
  private resize(capacity: number): void {
    const from = this.at.length - 1;
    const to = capacity - 1;
    const at = capacity ? new Float64Array(capacity) : NONE;
    const tok = capacity ? new Float64Array(capacity) : NONE;
    const ids = this.ids ? new Array<string>(capacity).fill('') : undefined;
    for (let seq = this.first; seq < this.first + this.size; seq++) {
      at[seq & to] = this.at[seq & from]!;
      tok[seq & to] = this.tok[seq & from]!;
      if (ids) ids[seq & to] = this.ids![seq & from]!;
    }
    this.at = at;
    this.tok = tok;
    this.ids = ids;
  }
}
