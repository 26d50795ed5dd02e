// Usage through a journal table on PostgreSQL (the replica setup's default). A request's
// usage is durable once its row is in usage_journal: one autocommitted INSERT per group of
// concurrent requests, one round trip, no lock, no transaction. Before, each group paid a
// transaction (BEGIN, the team lock, the charges, COMMIT: four round trips) before its
// responses could end; that was most of the replica setup's added latency (bench/README.md).
//
// Any replica moves journal rows into the ledger and usage_events in batches: the rows are
// deleted in the transaction that records them, so each request is recorded exactly once
// whoever moves it, and a replica that dies leaves its rows for the others (a pass every
// `sweepMs`). Readers of money call settled(): it moves everything journaled before the call,
// waiting for a mover that holds some of it, so balance, budgets, bills and the budget
// counters' loads see every request answered before they asked, on any replica.
import type { Logger } from '../lib/logger.ts';
import type { Ctx } from '../domain/context.ts';
import { recordUsageTx, type UsageRecord } from '../domain/usage/record.ts';
import { recordedRequestIds } from '../store/usage.ts';
import { appendJournal, journalHead, journaledRequestIds, markJournalFailed, retryFailedJournal, takeJournal } from '../store/usage-journal.ts';
import { isDatabaseUnreachable } from '../lib/dependencies.ts';
import { GroupCommit } from './group-commit.ts';
import { decodeUsage, encodeUsage } from '../domain/usage/codec.ts';
import { UncertainCommits } from './uncertain-commits.ts';
import type { UsageSink } from './usage-sink.ts';

export interface PgJournalSinkOptions {
  /** Records per move (one transaction). */
  maxBatch?: number;
  /** How long a journaled record may wait for others to share its move. */
  maxDelayMs?: number;
  /** How often the journal is looked at for rows no live mover took (a dead replica's). */
  sweepMs?: number;
}

export class PgJournalSink implements UsageSink {
  private readonly ctx: Ctx;
  private readonly log: Logger;
  private readonly writer: GroupCommit<UsageRecord>;
  private readonly doubts: UncertainCommits;
  private readonly maxBatch: number;
  private readonly maxDelayMs: number;
  private moving: Promise<void> | null = null;
  private timer: NodeJS.Timeout | undefined;
  private readonly sweeper: NodeJS.Timeout;
  private closed = false;
  /** a record was journaled since the last background move started */
  private dirty = false;
  private readonly counts = { moveBatches: 0, moved: 0, moveMs: 0, failed: 0, appended: 0 };

  private constructor(ctx: Ctx, log: Logger, opts: PgJournalSinkOptions) {
    this.ctx = ctx;
    this.log = log;
    this.maxBatch = opts.maxBatch ?? 4096;
    this.maxDelayMs = opts.maxDelayMs ?? 200;
    const append = (batch: UsageRecord[]) => appendJournal(ctx.db, batch.map(encodeUsage));
    this.writer = new GroupCommit(append, (one) => append([one]), this.maxBatch);
    // a lost connection during the insert: did the row land, and was it moved since?
    this.doubts = new UncertainCommits(async (ids) => new Set([...await journaledRequestIds(ctx.db, ids), ...await recordedRequestIds(ctx.db, ids)]));
    this.sweeper = setInterval(() => this.schedule(0), opts.sweepMs ?? 1000);
    this.sweeper.unref();
  }

  /** Records that failed under an earlier process are tried again, then whatever waits is moved. */
  static async open(ctx: Ctx, log: Logger, opts: PgJournalSinkOptions = {}): Promise<PgJournalSink> {
    const sink = new PgJournalSink(ctx, log, opts);
    const retried = await retryFailedJournal(ctx.db);
    if (retried) log.warn({ records: retried }, 'retrying usage journal records the ledger refused before');
    sink.schedule(0);
    return sink;
  }

  async record(rec: UsageRecord): Promise<void> {
    await this.doubts.watch(rec.requestId, this.writer.add(rec));
    this.counts.appended++;
    this.dirty = true;
    this.schedule(this.maxDelayMs);
  }

  /** Everything journaled (by any replica) before the call is in the ledger once this resolves. */
  async settled(): Promise<void> {
    const head = await journalHead(this.ctx.db);
    if (head === null) return;
    while ((await this.moveBatch({ upTo: head, skipLocked: false })) === this.maxBatch);
  }

  stats(): Record<string, number> {
    return { ...this.writer.stats, ...this.counts, lag: this.lag, ...this.doubts.counts };
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.sweeper);
    clearTimeout(this.timer);
    this.doubts.close();
    await this.writer.drain();
    await this.moving;
    // a replica stopping moves what it can; what it cannot stays for the others or the next start
    await this.moveAll().catch((e) => this.log.warn({ err: e }, 'moving the usage journal at close failed; another replica or the next start will'));
  }

  /** What this replica journaled and no mover of its own has moved (another replica may have). */
  private get lag(): number {
    return Math.max(0, this.counts.appended - this.counts.moved);
  }

  /** A background move after `delayMs` (at once when a batch is full), unless one is due or running. */
  private schedule(delayMs: number): void {
    const delay = this.lag >= this.maxBatch ? 0 : delayMs;
    if (this.closed || this.moving !== null || (this.timer && delay > 0)) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.dirty = false;
      this.moving = this.moveAll()
        .catch((e) => this.log[isDatabaseUnreachable(e) ? 'debug' : 'warn']({ err: e }, 'moving the usage journal failed; retried at the next pass'))
        .finally(() => {
          this.moving = null;
          if (this.dirty) this.schedule(this.maxDelayMs); // journaled while this move ran
        });
    }, delay);
    this.timer.unref();
  }

  private async moveAll(): Promise<void> {
    if ((await journalHead(this.ctx.db)) === null) return; // one cheap read when idle, no transaction
    while ((await this.moveBatch({ skipLocked: true })) === this.maxBatch);
  }

  /**
   * One transaction: take up to maxBatch rows and record them. A batch the ledger refuses is
   * taken again one row at a time; a row that still fails is marked and left out.
   */
  private async moveBatch(opts: { upTo?: string; skipLocked: boolean }): Promise<number> {
    const t0 = performance.now();
    try {
      const n = await this.ctx.db.transaction(async (tx) => {
        const rows = await takeJournal(tx, { limit: this.maxBatch, upTo: opts.upTo, skipLocked: opts.skipLocked });
        if (rows.length) await recordUsageTx(tx, this.ctx.clock.nowMs(), rows.map((r) => decodeUsage(r.record)));
        return rows.length;
      });
      if (n) {
        this.counts.moveBatches++;
        this.counts.moved += n;
        this.counts.moveMs += performance.now() - t0;
      }
      return n;
    } catch (e) {
      if (isDatabaseUnreachable(e)) throw e;
      this.log.warn({ err: e }, 'moving a usage journal batch failed; moving its rows one at a time');
      return this.moveOneByOne(opts);
    }
  }

  private async moveOneByOne(opts: { upTo?: string; skipLocked: boolean }): Promise<number> {
    let n = 0;
    for (;;) {
      let taken: { id: string } | undefined;
      try {
        const moved = await this.ctx.db.transaction(async (tx) => {
          const [row] = await takeJournal(tx, { limit: 1, upTo: opts.upTo, skipLocked: opts.skipLocked });
          taken = row;
          if (!row) return false;
          // careful: a request the ledger holds already (a write whose outcome was unknown) is left as it is
          await recordUsageTx(tx, this.ctx.clock.nowMs(), [decodeUsage(row.record)], true);
          return true;
        });
        if (!moved) return n;
        n++;
        this.counts.moved++;
      } catch (e) {
        if (isDatabaseUnreachable(e) || !taken) throw e;
        // the rollback put the row back; marked, it is left out of moves (rows after it go on)
        if (!(await markJournalFailed(this.ctx.db, taken.id, e instanceof Error ? e.message : String(e)))) continue; // counted by its marker
        this.counts.failed++;
        this.log.error({ err: e, journalId: taken.id }, 'usage record refused by the ledger; kept in usage_journal (failed_at) for the next start');
      }
    }
  }
}
