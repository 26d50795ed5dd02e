// A small TTL cache with single-flight loads: the hot path reads memory and awaits nothing
// while an entry is fresh; concurrent misses share one load.
export class TtlCache<V> {
  private readonly entries = new Map<string, { value: V; expiresAt: number }>();
  private readonly loading = new Map<string, Promise<V>>();
  private readonly ttlMs: number;
  private readonly maxEntries: number;
  // Bumped by delete/clear: a load that began before an invalidation must not put back what
  // it read (a revoked key, an old budget) after it; new callers start a load of their own.
  private generation = 0;
  constructor(ttlMs: number, maxEntries = 100_000) {
    this.ttlMs = ttlMs;
    this.maxEntries = maxEntries;
  }

  /** The fresh value, or undefined. */
  peek(key: string): V | undefined {
    const e = this.entries.get(key);
    return e && e.expiresAt > Date.now() ? e.value : undefined; // wall clock: freshness is not business time
  }

  get(key: string, load: () => Promise<V>): V | Promise<V> {
    const hit = this.peek(key);
    if (hit !== undefined) return hit;
    let p = this.loading.get(key);
    if (!p) {
      // Fresh for ttl from when the load began: what it read can be no older than that.
      const startedAt = Date.now();
      const gen = this.generation;
      const loading: Promise<V> = load().then((value) => {
        if (gen !== this.generation) return value;
        if (this.entries.size >= this.maxEntries) this.entries.clear();
        this.entries.set(key, { value, expiresAt: startedAt + this.ttlMs });
        return value;
      }).finally(() => {
        if (this.loading.get(key) === loading) this.loading.delete(key);
      });
      p = loading;
      this.loading.set(key, p);
    }
    return p;
  }

  delete(key: string): void {
    this.generation++;
    this.entries.delete(key);
    this.loading.delete(key);
  }

  clear(): void {
    this.generation++;
    this.entries.clear();
    this.loading.clear();
  }
}
