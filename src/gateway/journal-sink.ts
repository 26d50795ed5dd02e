// Usage through a local journal (the embedded default): record() appends the request's line
// and the response waits only for that; a background writer moves lines into the database in
// large transactions, which costs the embedded database (on its own thread) a fraction of a
// transaction per request. The lines of requests settled in the same turn of the event loop
// are appended together, with one write(2): under load that is a syscall for several
// requests instead of one each (each syscall costs this kind of VM several µs). Readers of
// money (balance, budgets, bills, the budget counters' loads) wait on settled(), so they see
// every request answered before they asked. At start, lines a killed process left behind are
// replayed idempotently (request ids are unique among usage events).
import type { Logger } from '../lib/logger.ts';
import { encodeUsage } from '../domain/usage/codec.ts';
import type { UsageRecord } from '../domain/usage/record.ts';
import { Journal, type RecoveredLine } from '../store/journal.ts';
import type { UsageSink } from './usage-sink.ts';

/** Stores a batch of journal lines (codec.ts): recordUsage, here or on the database's thread (Store.procedure). */
export type WriteUsage = (lines: string[], careful: boolean) => Promise<void>;

export interface JournalSinkOptions {
  dir: string;
  write: WriteUsage;
  /** Wait for fdatasync before a response (power-loss durable); else the kernel has it (process-crash durable). */
  fsync: boolean;
  /** Records per database transaction. */
  maxBatch?: number;
  /** How long a record may wait for others to share its transaction. */
  maxDelayMs?: number;
  /** Records allowed to wait for the database; past this, record() waits too (backpressure). */
  maxLag?: number;
}

interface Queued {
  line: string;
  segment: number;
}

/** Lines settled in this turn of the event loop, appended together at its end. */
interface Group {
  lines: string[];
  done: Promise<void>;
  resolve: () => void;
  reject: (e: unknown) => void;
}

export class JournalSink implements UsageSink {
  private readonly write: WriteUsage;
  private readonly log: Logger;
  private readonly journal: Journal;
  private readonly fsync: boolean;
  private readonly maxBatch: number;
  private readonly maxDelayMs: number;
  private readonly maxLag: number;
  private queue: Queued[] = [];
  private group: Group | null = null;
  private appended = 0;
  private stored = 0;
  private waiters: Array<{ upTo: number; resolve: () => void }> = [];
  private running: Promise<void> | null = null;
  private timer: NodeJS.Timeout | undefined;
  private readonly counts = { batches: 0, items: 0, flushMs: 0, failed: 0, replayed: 0 };

  private constructor(log: Logger, journal: Journal, opts: JournalSinkOptions) {
    this.write = opts.write;
    this.log = log;
    this.journal = journal;
    this.fsync = opts.fsync;
    this.maxBatch = opts.maxBatch ?? 4096;
    this.maxDelayMs = opts.maxDelayMs ?? 200;
    this.maxLag = opts.maxLag ?? 50_000;
  }

  /** Opens the journal and stores whatever an earlier process left in it before returning. */
  static async open(log: Logger, opts: JournalSinkOptions): Promise<JournalSink> {
    const { journal, recovered } = Journal.open(opts.dir, { fsync: opts.fsync });
    const sink = new JournalSink(log, journal, opts);
    if (recovered.length) await sink.replay(recovered);
    return sink;
  }

  private async replay(lines: RecoveredLine[]): Promise<void> {
    const queued: Queued[] = lines.map(({ segment, line }) => ({ line, segment }));
    // Some may be in the database already (stored, then the process died before the
    // journal noticed): the careful path skips those. A line that cannot be read fails its
    // batch, and then alone (store): its segment is kept for the next start and for inspection.
    for (let i = 0; i < queued.length; i += this.maxBatch) await this.store(queued.slice(i, i + this.maxBatch), true);
    this.counts.replayed += queued.length;
    this.log.info({ records: queued.length }, 'replayed the usage journal');
  }

  record(rec: UsageRecord): Promise<void> {
    let g = this.group;
    if (!g) {
      let resolve!: () => void;
      let reject!: (e: unknown) => void;
      const done = new Promise<void>((res, rej) => { resolve = res; reject = rej; });
      g = this.group = { lines: [], done, resolve, reject };
      setImmediate(() => this.append(g!));
    }
    g.lines.push(encodeUsage(rec));
    return g.done;
  }

  /** Append a turn's lines with one write; their requests' responses go on once it returned. */
  private append(g: Group): void {
    this.group = null;
    let segment: number;
    try {
      segment = this.journal.append(g.lines); // throws when the disk refuses: nothing was promised
    } catch (e) {
      g.reject(e);
      return;
    }
    for (const line of g.lines) this.queue.push({ line, segment });
    this.appended += g.lines.length;
    this.schedule();
    if (this.appended - this.stored > this.maxLag) this.until(this.appended - this.maxLag).then(g.resolve, g.reject);
    else if (this.fsync) this.journal.sync().then(g.resolve, g.reject);
    else g.resolve();
  }

  settled(): Promise<void> | undefined {
    const g = this.group; // recorded in this turn, not appended yet: those too
    if (g) return g.done.then(() => this.settled(), () => this.settled());
    if (this.stored >= this.appended) return undefined;
    return this.until(this.appended);
  }

  stats(): Record<string, number> {
    return { ...this.counts, lag: this.appended - this.stored };
  }

  async close(): Promise<void> {
    await this.settled();
    clearTimeout(this.timer);
    this.journal.close();
  }

  private until(upTo: number): Promise<void> {
    return new Promise((resolve) => {
      this.waiters.push({ upTo, resolve });
      this.schedule();
    });
  }

  /** Flush now when someone waits or a batch is full; otherwise let more records gather. */
  private schedule(): void {
    if (this.running !== null) return;
    if (this.waiters.length || this.queue.length >= this.maxBatch) {
      clearTimeout(this.timer);
      this.timer = undefined;
      this.start();
    } else if (!this.timer && this.queue.length) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        if (this.running === null) this.start();
      }, this.maxDelayMs);
    }
  }

  private start(): void {
    this.running = this.drain().finally(() => {
      this.running = null;
      if (this.queue.length) this.schedule();
    });
  }

  private async drain(): Promise<void> {
    do {
      const batch = this.queue.splice(0, this.maxBatch);
      await this.store(batch, false);
      this.stored += batch.length;
      const done = this.waiters.filter((w) => w.upTo <= this.stored);
      this.waiters = this.waiters.filter((w) => w.upTo > this.stored);
      for (const w of done) w.resolve();
    } while (this.queue.length && (this.waiters.length || this.queue.length >= this.maxBatch));
  }

  /** One transaction for the batch; if it fails, one per record, and a record that still fails stays in the journal. */
  private async store(batch: Queued[], careful: boolean): Promise<void> {
    if (!batch.length) return;
    const t0 = performance.now();
    try {
      await this.write(batch.map((q) => q.line), careful);
      this.counts.batches++;
      this.counts.items += batch.length;
    } catch (e) {
      this.log.warn({ err: e, records: batch.length }, 'storing a usage batch failed; retrying one record at a time');
      for (const q of batch) {
        try {
          await this.write([q.line], true);
          this.counts.items++;
        } catch (e2) {
          this.counts.failed++;
          this.journal.keep(q.segment);
          this.log.error({ err: e2, line: q.line }, 'usage record could not be stored; kept in the journal for the next start');
        }
      }
    }
    this.counts.flushMs += performance.now() - t0;
    for (const q of batch) this.journal.done(q.segment);
  }
}
