// One rate window of the in-process counters (memory.ts): the requests admitted within the
// last window, oldest first, in ring buffers of numbers. A Map of request ids held ~260 bytes a
// request for a whole window (~150 with flat ids, lib/ids.ts): at 5,000 requests a second,
// ~77 MB kept for a minute, then collected by the old generation's GC
// (bench/gateway/rate-window.ts; what it did to the server under load: bench/README.md).
// Requests admitted in the same millisecond (the clock's grain) share one slot, which counts
// them and sums their tokens: they leave the window together, so nothing is lost, and a window
// holds at most one slot per millisecond of its length however many requests arrive (a full
// 60 s window at 11,000 requests a second was 16 MB of slots, one per request; now ≤ 1.5 MB).
// Only the requests not yet settled keep their id and estimate, to put their real token count
// in; with `keepIds` (the Redis counters' mirror, which puts entries back by id after Redis
// lost them) every request keeps its own slot and its id, as a flat string in an array beside
// the numbers.
//
// Slot number `seq` (each new slot takes the next) lives at `seq & (capacity - 1)`; a window
// with nothing in it holds no buffers at all (there is one window per team and model, and most
// are idle at any moment).

const NONE = new Float64Array(0);
const MIN_CAPACITY = 8;

export class RateLog {
  private at = NONE;
  private tok = NONE;
  /** requests in each slot; absent with keepIds (one request a slot) */
  private cnt: Float64Array | undefined = NONE;
  private ids: string[] | undefined;
  /** number of the oldest slot */
  private first = 0;
  /** slots in use */
  private slots = 0;
  /** requests in the window */
  size = 0;
  tokens = 0;
  /** admitted, not yet settled: request id → its slot and its estimate */
  private readonly open = new Map<string, { seq: number; tokens: number }>();

  constructor(opts: { keepIds?: boolean } = {}) {
    if (opts.keepIds) {
      this.ids = [];
      this.cnt = undefined;
    }
  }

  /** Drop the entries admitted at or before `atOrBefore` (they left the window). */
  evict(atOrBefore: number): void {
    const mask = this.at.length - 1;
    while (this.slots > 0 && this.at[this.first & mask]! <= atOrBefore) {
      const i = this.first & mask;
      this.tokens -= this.tok[i]!;
      this.size -= this.cnt ? this.cnt[i]! : 1;
      if (this.ids) this.ids[i] = '';
      this.first++;
      this.slots--;
    }
    // a request never settled (its holder died) must not keep its id for ever
    if (this.open.size > this.size) for (const [id, o] of this.open) if (o.seq < this.first) this.open.delete(id);
    // what a burst grew is given back once the window is quiet again; an empty one keeps nothing
    if (this.slots === 0 && this.at.length > 0) this.resize(0);
    else if (this.at.length > MIN_CAPACITY && this.slots < this.at.length >> 2) this.resize(this.at.length >> 1);
  }

  add(requestId: string, atMs: number, tokens: number): void {
    this.size++;
    this.tokens += tokens;
    const last = this.first + this.slots - 1;
    if (this.cnt && this.slots > 0 && this.at[last & (this.at.length - 1)] === atMs) {
      const i = last & (this.at.length - 1);
      this.tok[i]! += tokens;
      this.cnt[i]!++;
      this.open.set(requestId, { seq: last, tokens });
      return;
    }
    if (this.slots === this.at.length) this.resize(Math.max(MIN_CAPACITY, this.at.length * 2));
    const seq = this.first + this.slots;
    const i = seq & (this.at.length - 1);
    this.at[i] = atMs;
    this.tok[i] = tokens;
    if (this.cnt) this.cnt[i] = 1;
    if (this.ids) this.ids[i] = requestId;
    this.open.set(requestId, { seq, tokens });
    this.slots++;
  }

  /** The request's real token count replaces its estimate, if it is still in the window. */
  settle(requestId: string, tokensUsed: number): void {
    const o = this.open.get(requestId);
    if (o === undefined) return;
    this.open.delete(requestId);
    if (o.seq < this.first) return; // it left the window already
    this.tokens += tokensUsed - o.tokens;
    this.tok[o.seq & (this.at.length - 1)]! += tokensUsed - o.tokens;
  }

  /** When the oldest entry was admitted (undefined: empty). */
  oldestAt(): number | undefined {
    return this.slots > 0 ? this.at[this.first & (this.at.length - 1)] : undefined;
  }

  /** Oldest first, one a slot (requests of the same millisecond together, their tokens summed); `id` only with keepIds. */
  *entries(): Generator<{ atMs: number; tokens: number; id: string }> {
    const mask = this.at.length - 1;
    for (let seq = this.first; seq < this.first + this.slots; seq++) {
      const i = seq & mask;
      yield { atMs: this.at[i]!, tokens: this.tok[i]!, id: this.ids?.[i] ?? '' };
    }
  }

  /** Slot numbers stay; their slots move to the new capacity (a power of two, or 0 when empty). */
  private resize(capacity: number): void {
    const from = this.at.length - 1;
    const to = capacity - 1;
    const at = capacity ? new Float64Array(capacity) : NONE;
    const tok = capacity ? new Float64Array(capacity) : NONE;
    const cnt = this.cnt && capacity ? new Float64Array(capacity) : this.cnt && NONE;
    const ids = this.ids ? new Array<string>(capacity).fill('') : undefined;
    for (let seq = this.first; seq < this.first + this.slots; seq++) {
      at[seq & to] = this.at[seq & from]!;
      tok[seq & to] = this.tok[seq & from]!;
      if (cnt) cnt[seq & to] = this.cnt![seq & from]!;
      if (ids) ids[seq & to] = this.ids![seq & from]!;
    }
    this.at = at;
    this.tok = tok;
    this.cnt = cnt;
    this.ids = ids;
  }
}
