// Where settled usage goes before the response completes. Two ways, one promise: when
// record() has resolved, the request's usage event and ledger charge can no longer be lost.
// - CommitSink: committed to the database (group commit). The PostgreSQL setup, where the
//   database is shared by stateless replicas.
// - JournalSink (journal-sink.ts): appended to a local journal beside the embedded store and
//   moved into the database in large batches in the background; replayed at start.
import type { Ctx } from '../domain/context.ts';
import { recordUsage, type UsageRecord } from '../domain/usage/record.ts';
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

  constructor(ctx: Ctx) {
    this.writer = new GroupCommit((batch) => recordUsage(ctx, batch), (one) => recordUsage(ctx, [one], true));
  }

  record(rec: UsageRecord): Promise<void> {
    return this.writer.add(rec);
  }

  settled(): undefined {
    return undefined; // record() resolves only after the commit
  }

  stats(): Record<string, number> {
    return { ...this.writer.stats };
  }

  close(): Promise<void> {
    return this.writer.drain();
  }
}
