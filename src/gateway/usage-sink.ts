// Where settled usage goes before the response completes. Two ways, one promise: when
// record() has resolved, the request's usage event and ledger charge can no longer be lost.
// - CommitSink: committed to the database (group commit). The PostgreSQL setup, where the
//   database is shared by stateless replicas.
// - JournalSink (journal-sink.ts): appended to a local journal beside the embedded store and
//   moved into the database in large batches in the background; replayed at start.
import type { Ctx } from '../domain/context.ts';
import { recordUsage, type UsageRecord } from '../domain/usage/record.ts';
import { recordedRequestIds } from '../store/usage.ts';
import { isDatabaseUnreachable } from '../lib/dependencies.ts';
import { GroupCommit } from './group-commit.ts';

export interface UsageSink {
  /** Durable once this returns (undefined) or its promise resolves; throws if it cannot be made so. */
  record(rec: UsageRecord): Promise<void> | undefined;
  /** Resolves once everything recorded before the call is in the database (readers wait on it). */
  settled(): Promise<void> | undefined;
  /** Counters for /metrics and the benchmark. */
  stats(): Record<string, number>;
  close(): Promise<void>;
}

export class CommitSink implements UsageSink {
  private readonly writer: GroupCommit<UsageRecord>;
  private readonly ctx: Ctx;
  /**
   * Requests whose commit failed on a lost connection: the commit may have landed before the
   * connection went (the client was told 503). Checked once the database answers; those that
   * did land are counted as recorded-but-unanswered (answered = recorded = billed otherwise).
   */
  private uncertain: string[] = [];
  private checking: NodeJS.Timeout | undefined;
  private readonly extra = { recordedUnanswered: 0, uncertain: 0 };

  constructor(ctx: Ctx) {
    this.ctx = ctx;
    this.writer = new GroupCommit((batch) => recordUsage(ctx, batch), (one) => recordUsage(ctx, [one], true));
  }

  async record(rec: UsageRecord): Promise<void> {
    try {
      await this.writer.add(rec);
    } catch (err) {
      if (isDatabaseUnreachable(err)) this.doubt(rec.requestId);
      throw err;
    }
  }

  private doubt(requestId: string): void {
    this.uncertain.push(requestId);
    this.extra.uncertain = this.uncertain.length;
    this.checking ??= setTimeout(() => void this.checkUncertain(), 1000);
    this.checking.unref();
  }

  /** Look up the doubtful commits; retried every second until the database answers. */
  async checkUncertain(): Promise<void> {
    this.checking = undefined;
    const ids = this.uncertain.splice(0, 1000);
    if (!ids.length) return;
    try {
      const landed = await recordedRequestIds(this.ctx.db, ids);
      this.extra.recordedUnanswered += landed.size;
    } catch {
      this.uncertain.unshift(...ids); // still unreachable: later
    }
    this.extra.uncertain = this.uncertain.length;
    if (this.uncertain.length) {
      this.checking = setTimeout(() => void this.checkUncertain(), 1000);
      this.checking.unref();
    }
  }

  settled(): undefined {
    return undefined; // record() resolves only after the commit
  }

  stats(): Record<string, number> {
    return { ...this.writer.stats, ...this.extra };
  }

  async close(): Promise<void> {
    if (this.checking) clearTimeout(this.checking);
    await this.writer.drain();
  }
}
