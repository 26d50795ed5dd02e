// Endpoint and worker logs: the lines of endpoint_logs (the endpoint's own have no worker),
// read and followed through the shared log reader (domain/logs/follow.ts). A follower wakes
// at once on the endpoint's changes; it ends when the endpoint's row is gone (deleted and
// cleaned up), or when the worker followed has ended and its last lines are out.
import * as q from '../../store/serverless-endpoints.ts';
import type { LogReader } from '../logs/follow.ts';
import { FINAL_WORKER_STATES } from './codes.ts';
import { workerNotFound } from './errors.ts';
import { requireEndpoint } from './endpoints.ts';
import type { Serverless } from './service.ts';

/** Whose lines, after checking they are the caller team's: another team's read as missing. */
interface LogSource {
  source: q.LogSource;
  /** the endpoint the lines belong to (its changes wake followers) */
  endpointId: string;
}

export async function endpointLogReader(s: Serverless, teamId: string, endpointId: string): Promise<LogReader> {
  await requireEndpoint(s, teamId, endpointId);
  return reader(s, { source: { endpointId }, endpointId });
}

/** A worker's lines stay after its row is removed; they are the team's whose endpoint they belong to. */
export async function workerLogReader(s: Serverless, teamId: string, workerId: string): Promise<LogReader> {
  const w = await q.findWorker(s.ctx.db, workerId);
  if (w) {
    if (w.teamId !== teamId) throw workerNotFound(workerId);
    return reader(s, { source: { workerId }, endpointId: w.endpointId });
  }
  const endpointId = await q.endpointOfWorkerLogs(s.ctx.db, workerId);
  const ep = endpointId ? await q.findEndpoint(s.ctx.db, endpointId) : undefined;
  if (!ep || ep.teamId !== teamId) throw workerNotFound(workerId);
  return reader(s, { source: { workerId }, endpointId: ep.id });
}

function reader(s: Serverless, src: LogSource): LogReader {
  return {
    tail: (tail, afterSeq) => q.logTail(s.ctx.db, src.source, tail, afterSeq),
    after: (afterSeq, limit) => q.logsAfter(s.ctx.db, src.source, afterSeq, limit),
    async stillWriting() {
      if ('workerId' in src.source) {
        const w = await q.findWorker(s.ctx.db, src.source.workerId);
        return !!w && !(FINAL_WORKER_STATES as readonly string[]).includes(w.state);
      }
      return !!(await q.findEndpoint(s.ctx.db, src.endpointId));
    },
    watch: (wake) => s.ctx.changes.subscribe('endpoint.changed', (c) => {
      if (c.endpointId === src.endpointId) wake();
    }),
  };
}
