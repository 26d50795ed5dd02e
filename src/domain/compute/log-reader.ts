// Reading an instance's log (GET /gpu/instance/log): the stored lines through the shared log
// reader (domain/logs/follow.ts), the workload's newest output fetched while someone follows.
import * as q from '../../store/instance-logs.ts';
import * as cq from '../../store/compute.ts';
import type { LogReader } from '../logs/follow.ts';
import type { Compute } from './compute.ts';
import { requireInstance } from './instances.ts';
import { collectWorkloadLog, hasWorkload } from './logs.ts';

export const INSTANCE_LOG_PATH = '/gpu-instance/openapi/v1/gpu/instance/log';
/** a follower has the driver asked for new output at most this often (real time: it bounds load) */
const FOLLOW_COLLECT_MS = 1000;

export const instanceLogUrl = (publicBaseUrl: string, id: string) => `${publicBaseUrl}${INSTANCE_LOG_PATH}?instanceId=${encodeURIComponent(id)}`;

/** An instance's log, as the caller's team reads it: another team's instance is not found. */
export async function instanceLogReader(c: Compute, teamId: string, id: string, onCollectError?: (err: unknown) => void): Promise<LogReader> {
  await requireInstance(c, teamId, id);
  let collectedAt = -Infinity;
  return {
    tail: (tail, afterSeq) => q.instanceLogTail(c.ctx.db, id, tail, afterSeq),
    after: (afterSeq, limit) => q.instanceLogsAfter(c.ctx.db, id, afterSeq, limit),
    async stillWriting() {
      return (await cq.findInstance(c.ctx.db, id))?.status !== 'removed';
    },
    watch: (wake) => c.ctx.changes.subscribe('instance.log', (ch) => {
      if (ch.instanceId === id) wake();
    }),
    async refresh() {
      if (performance.now() - collectedAt < FOLLOW_COLLECT_MS) return;
      collectedAt = performance.now();
      const row = await cq.findInstance(c.ctx.db, id);
      // the workload's output is a convenience: a driver that cannot answer now leaves the
      // log as it is (the reconciler reads it again), it does not end the answer
      if (row && hasWorkload(row.status)) await collectWorkloadLog(c, id).catch((err: unknown) => onCollectError?.(err));
    },
  };
}

/** Whether the log has any line (the get view links to it only then). */
export async function hasLog(c: Compute, id: string): Promise<boolean> {
  return (await q.instanceLogTail(c.ctx.db, id, 1, 0)).length > 0;
}

