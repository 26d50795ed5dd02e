// Logs as a tail or followed as they are written, whoever's lines they are (serverless
// endpoints and workers, GPU instances): a source says how to read its lines, whether more
// may come, and what wakes a follower. Following polls (a line written by any replica is seen
// within one poll) and wakes at once when the source says so; it ends when the client goes,
// or when the source has ended and its last lines are out.

export const DEFAULT_TAIL = 200;
export const MAX_TAIL = 10_000;
/** how often a follower looks for new lines */
export const FOLLOW_POLL_MS = 250;
/** lines read per poll at most (a burst is sent in several) */
const FOLLOW_BATCH = 1000;

/** One stored line: `seq` orders the lines of a source and is the SSE event id. */
export interface LogLine {
  seq: number;
  atMs: number;
  line: string;
}

/** Whose lines: what a log route has checked belongs to the caller's team. */
export interface LogReader {
  /** the last `tail` lines after `afterSeq`, oldest first (tail > 0) */
  tail(tail: number, afterSeq: number): Promise<LogLine[]>;
  /** lines after `afterSeq`, oldest first, at most `limit` */
  after(afterSeq: number, limit: number): Promise<LogLine[]>;
  /** whether more lines may still come */
  stillWriting(): Promise<boolean>;
  /** call `wake` when new lines may have been written; returns the unsubscribe */
  watch(wake: () => void): () => void;
  /** brings lines written elsewhere into the store before a read (e.g. a workload's output) */
  refresh?(): Promise<void>;
}

/** The last `tail` lines (after `afterSeq`, a client resuming), oldest first. */
export async function logTail(r: LogReader, tail: number, afterSeq = 0): Promise<LogLine[]> {
  const n = Math.min(Math.max(tail, 0), MAX_TAIL);
  if (n === 0) return [];
  await r.refresh?.();
  return r.tail(n, afterSeq);
}

/** Where following starts when the tail sent nothing (tail=0): after the lines written so far. */
export async function lastSeq(r: LogReader): Promise<number> {
  const [last] = await r.tail(1, 0);
  return last?.seq ?? 0;
}

/** One line as text: with its time (ISO 8601 UTC) in front when asked. */
export function formatLine(l: LogLine, timestamps: boolean): string {
  return timestamps ? `${new Date(l.atMs).toISOString()} ${l.line}` : l.line;
}

/**
 * Lines after `afterSeq` as they are written, in batches, until `signal` aborts or the source
 * has ended (its last lines are yielded first). `idle` is called when a poll found nothing.
 */
export async function* followLogs(r: LogReader, afterSeq: number, signal: AbortSignal, opts: { pollMs?: number; idle?: () => void } = {}): AsyncGenerator<LogLine[]> {
  let last = afterSeq;
  let wake: (() => void) | undefined;
  const off = r.watch(() => wake?.());
  const onAbort = () => wake?.();
  signal.addEventListener('abort', onAbort);
  try {
    let ending = false;
    while (!signal.aborted) {
      await r.refresh?.();
      const rows = await r.after(last, FOLLOW_BATCH);
      if (rows.length) {
        last = rows[rows.length - 1]!.seq;
        yield rows;
        if (rows.length === FOLLOW_BATCH) continue;
      } else if (ending) {
        return;
      } else {
        opts.idle?.();
      }
      // the source ended: read once more (lines written just before it did), then stop
      if (!(await r.stillWriting())) {
        ending = true;
        continue;
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, opts.pollMs ?? FOLLOW_POLL_MS);
        function done() {
          clearTimeout(timer);
          wake = undefined;
          resolve();
        }
        wake = done;
        if (signal.aborted) done();
      });
    }
  } finally {
    off();
    signal.removeEventListener('abort', onAbort);
  }
}
