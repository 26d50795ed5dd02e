// Group commit: callers add items and wait; one writer flushes whatever has queued up in a
// single transaction, so many concurrent requests share one commit. A failed batch is
// retried item by item, so one bad item cannot fail its neighbours.
export class GroupCommit<T> {
  private queue: Array<{ item: T; resolve: () => void; reject: (e: unknown) => void }> = [];
  private running: Promise<void> | null = null;
  /** Counters for tuning: batches flushed, items in them, time spent flushing. */
  readonly stats = { batches: 0, items: 0, flushMs: 0 };
  private readonly flush: (items: T[]) => Promise<void>;
  private readonly flushOne: (item: T) => Promise<void>;
  private readonly maxBatch: number;
  /** `flushOne` writes a single item the careful way, after its batch failed. */
  constructor(flush: (items: T[]) => Promise<void>, flushOne: (item: T) => Promise<void>, maxBatch = 256) {
    this.flush = flush;
    this.flushOne = flushOne;
    this.maxBatch = maxBatch;
  }

  add(item: T): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (!this.running) this.running = this.loop().finally(() => { this.running = null; });
    });
  }

  /** Wait until everything queued so far is written. */
  async drain(): Promise<void> {
    while (this.running !== null) await this.running;
  }

  private async loop(): Promise<void> {
    while (this.queue.length) {
      // Let pending I/O run first so requests finishing right now join this batch. Needed
      // because an embedded database answers on the same thread, without yielding.
      await new Promise((r) => setImmediate(r));
      const batch = this.queue.splice(0, this.maxBatch);
      const t0 = performance.now();
      try {
        await this.flush(batch.map((b) => b.item));
        this.stats.batches++;
        this.stats.items += batch.length;
        this.stats.flushMs += performance.now() - t0;
        for (const b of batch) b.resolve();
      } catch (e) {
        for (const b of batch) {
          try {
            await this.flushOne(b.item);
            b.resolve();
          } catch (e2) {
            b.reject(e2 ?? e);
          }
        }
      }
    }
  }
}
