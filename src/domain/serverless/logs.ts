// Endpoint and worker logs: the lines of endpoint_logs (the endpoint's own have no worker),
// read as a tail, or followed as they are written. Following polls the table (a line
// written by any replica is seen within one poll) and wakes at once on the endpoint's
// changes; it ends when the client goes, when the endpoint's row is gone (deleted and
// cleaned up), or when the worker followed has ended and its last lines are out.
import * as q from '../../store/serverless-endpoints.ts';
import { FINAL_WORKER_STATES } from './codes.ts';
import { workerNotFound } from './errors.ts';
import { requireEndpoint } from './endpoints.ts';
import type { Serverless } from './service.ts';

export const DEFAULT_TAIL = 200;
export const MAX_TAIL = 10_000;
/** how often a follower looks for new lines */
export const FOLLOW_POLL_MS = 250;
/** lines read per poll at most (a burst is sent in several) */
const FOLLOW_BATCH = 1000;

export type LogLine = q.LogRow;

/** Whose lines, after checking they are the caller team's: another team's read as missing. */
export interface LogSource {
  source: q.LogSource;
  /** the endpoint the lines belong to (its changes wake followers) */
  endpointId: string;
}

export async function endpointLogSource(s: Serverless, teamId: string, endpointId: string): Promise<LogSource> {
  await requireEndpoint(s, teamId, endpointId);
  return { source: { endpointId }, endpointId };
}

/** A worker's lines stay after its row is removed; they are the team's whose endpoint they belong to. */
export async function workerLogSource(s: Serverless, teamId: string, workerId: string): Promise<LogSource> {
  const w = await q.findWorker(s.ctx.db, workerId);
  if (w) {
    if (w.teamId !== teamId) throw workerNotFound(workerId);
    return { source: { workerId }, endpointId: w.endpointId };
  }
  const endpointId = await q.endpointOfWorkerLogs(s.ctx.db, workerId);
  const ep = endpointId ? await q.findEndpoint(s.ctx.db, endpointId) : undefined;
  if (!ep || ep.teamId !== teamId) throw workerNotFound(workerId);
  return { source: { workerId }, endpointId: ep.id };
}

/** The last `tail` lines (after `afterSeq`, a client resuming), oldest first. */
export function logTail(s: Serverless, src: LogSource, tail: number, afterSeq = 0): Promise<LogLine[]> {
  return q.logTail(s.ctx.db, src.source, Math.min(Math.max(tail, 0), MAX_TAIL), afterSeq);
}

/** One line as text: with its time (ISO 8601 UTC) in front when asked. */
export function formatLine(l: LogLine, timestamps: boolean): string {
  return timestamps ? `${new Date(l.atMs).toISOString()} ${l.line}` : l.line;
}

/** Whether more lines may still come from the source. */
async function stillWriting(s: Serverless, src: LogSource): Promise<boolean> {
  if ('workerId' in src.source) {
    const w = await q.findWorker(s.ctx.db, src.source.workerId);
    return !!w && !(FINAL_WORKER_STATES as readonly string[]).includes(w.state);
  }
  return !!(await q.findEndpoint(s.ctx.db, src.endpointId));
}

/**
 * Lines after `afterSeq` as they are written, in batches, until `signal` aborts or the source
 * has ended (its last lines are yielded first). `idle` is called when a poll found nothing.
 */
export async function* followLogs(s: Serverless, src: LogSource, afterSeq: number, signal: AbortSignal, opts: { pollMs?: number; idle?: () => void } = {}): AsyncGenerator<LogLine[]> {
  let last = afterSeq;
  let wake: (() => void) | undefined;
  const off = s.ctx.changes.subscribe('endpoint.changed', (c) => {
    if (c.endpointId === src.endpointId) wake?.();
  });
  const onAbort = () => wake?.();
  signal.addEventListener('abort', onAbort);
  try {
    let ending = false;
    while (!signal.aborted) {
      const rows = await q.logsAfter(s.ctx.db, src.source, last, FOLLOW_BATCH);
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
      if (!(await stillWriting(s, src))) {
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
