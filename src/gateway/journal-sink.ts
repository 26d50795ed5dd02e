// Usage through a local journal (the embedded default): record() appends one line and
// returns; a background writer moves lines into the database in large transactions, which
// costs the embedded database (on this thread) a fraction of a transaction per request.
// Readers of money (balance, budgets, bills, the budget counters' loads) wait on settled(),
// so they see every request answered before they asked. At start, lines a killed process
// left behind are replayed idempotently (request ids are unique in the ledger and events).
import type { FastifyBaseLogger } from 'fastify';
import type { UsageRecord } from '../domain/usage/record.ts';
import { Journal, type RecoveredLine } from '../store/journal.ts';
import type { UsageSink } from './usage-sink.ts';

/** Stores a batch: recordUsage, here or on the database's thread (Store.procedure). */
export type WriteUsage = (batch: UsageRecord[], careful: boolean) => Promise<void>;

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
  rec: UsageRecord;
  segment: number;
}

export function encodeUsage(r: UsageRecord): string {
  return JSON.stringify({
    ...r, inputPricePerMUnits: String(r.inputPricePerMUnits), outputPricePerMUnits: String(r.outputPricePerMUnits),
    cachedInputPricePerMUnits: r.cachedInputPricePerMUnits === undefined ? undefined : String(r.cachedInputPricePerMUnits),
  });
}

/** Lines written before cached prices existed decode with none (cost as it was). */
export function decodeUsage(line: string): UsageRecord {
  const o = JSON.parse(line);
  return {
    ...o, inputPricePerMUnits: BigInt(o.inputPricePerMUnits), outputPricePerMUnits: BigInt(o.outputPricePerMUnits),
    cachedInputPricePerMUnits: o.cachedInputPricePerMUnits === undefined ? undefined : BigInt(o.cachedInputPricePerMUnits),
  };
}

export class JournalSink implements UsageSink {
  private readonly write: WriteUsage;
  private readonly log: FastifyBaseLogger;
  private readonly journal: Journal;
  private readonly fsync: boolean;
  private readonly maxBatch: number;
  private readonly maxDelayMs: number;
  private readonly maxLag: number;
  private queue: Queued[] = [];
  private appended = 0;
  private stored = 0;
  private waiters: Array<{ upTo: number; resolve: () => void }> = [];
  private running: Promise<void> | null = null;
  private timer: NodeJS.Timeout | undefined;
  private readonly counts = { batches: 0, items: 0, flushMs: 0, failed: 0, replayed: 0 };

  private constructor(log: FastifyBaseLogger, journal: Journal, opts: JournalSinkOptions) {
    this.write = opts.write;
    this.log = log;
    this.journal = journal;
    this.fsync = opts.fsync;
    this.maxBatch = opts.maxBatch ?? 4096;
    this.maxDelayMs = opts.maxDelayMs ?? 200;
    this.maxLag = opts.maxLag ?? 50_000;
  }

  /** Opens the journal and stores whatever an earlier process left in it before returning. */
  static async open(log: FastifyBaseLogger, opts: JournalSinkOptions): Promise<JournalSink> {
    const { journal, recovered } = Journal.open(opts.dir, { fsync: opts.fsync });
    const sink = new JournalSink(log, journal, opts);
    if (recovered.length) await sink.replay(recovered);
    return sink;
  }

  private async replay(lines: RecoveredLine[]): Promise<void> {
    const queued: Queued[] = [];
    for (const { segment, line } of lines) {
      try {
        queued.push({ rec: decodeUsage(line), segment });
      } catch (e) {
        this.journal.keep(segment);
        this.log.error({ err: e, segment }, 'unreadable usage journal line kept for inspection');
      }
    }
    // Some may be in the database already (stored, then the process died before the
    // journal noticed): the careful path skips those.
    for (let i = 0; i < queued.length; i += this.maxBatch) await this.store(queued.slice(i, i + this.maxBatch), true);
    this.counts.replayed += queued.length;
    this.log.info({ records: queued.length }, 'replayed the usage journal');
  }

  record(rec: UsageRecord): Promise<void> | undefined {
    const segment = this.journal.append(encodeUsage(rec)); // throws when the disk refuses: nothing was promised
    this.queue.push({ rec, segment });
    this.appended++;
    this.schedule();
    if (this.appended - this.stored > this.maxLag) return this.until(this.appended - this.maxLag);
    return this.fsync ? this.journal.sync() : undefined;
  }

  settled(): Promise<void> | undefined {
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
      await this.write(batch.map((q) => q.rec), careful);
      this.counts.batches++;
      this.counts.items += batch.length;
    } catch (e) {
      this.log.warn({ err: e, records: batch.length }, 'storing a usage batch failed; retrying one record at a time');
      for (const q of batch) {
        try {
          await this.write([q.rec], true);
          this.counts.items++;
        } catch (e2) {
          this.counts.failed++;
          this.journal.keep(q.segment);
          this.log.error({ err: e2, requestId: q.rec.requestId }, 'usage record could not be stored; kept in the journal for the next start');
        }
      }
    }
    this.counts.flushMs += performance.now() - t0;
    for (const q of batch) this.journal.done(q.segment);
  }
}
