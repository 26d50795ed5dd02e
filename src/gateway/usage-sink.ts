// Where settled usage goes before the response completes. Two ways, one promise: when
// record() has resolved, the request's usage event and ledger charge can no longer be lost.
// - CommitSink: the ledger rows committed to the database (group commit): GANTRY_USAGE_JOURNAL=off.
// - JournalSink (journal-sink.ts): appended to a local journal beside the embedded store and
//   moved into the database in large batches in the background; replayed at start.
// - PgJournalSink (pg-journal-sink.ts): inserted into PostgreSQL's usage_journal table and
//   moved into the ledger in the background by any replica (the replica setup).
import type { Ctx } from '../domain/context.ts';
import { recordUsage, type UsageRecord } from '../domain/usage/record.ts';
import { recordedRequestIds } from '../store/usage.ts';
import { GroupCommit } from './group-commit.ts';
import { UncertainCommits } from './uncertain-commits.ts';

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
  private readonly doubts: UncertainCommits;

  constructor(ctx: Ctx) {
    this.writer = new GroupCommit((batch) => recordUsage(ctx, batch), (one) => recordUsage(ctx, [one], true));
    this.doubts = new UncertainCommits((ids) => recordedRequestIds(ctx.db, ids));
  }

  record(rec: UsageRecord): Promise<void> {
    return this.doubts.watch(rec.requestId, this.writer.add(rec));
  }

  settled(): undefined {
    return undefined; // record() resolves only after the commit
  }

  stats(): Record<string, number> {
    return { ...this.writer.stats, ...this.doubts.counts };
  }

  async close(): Promise<void> {
    this.doubts.close();
    await this.writer.drain();
  }
}
