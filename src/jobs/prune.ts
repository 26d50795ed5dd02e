// The handler of `jobs.prune` (domain/jobs/system-jobs.ts): ended jobs are kept for operators to read
// (GET /admin/v1/jobs), then deleted in small batches so no statement holds the embedded
// store's one connection for long.
import type { Ctx } from '../domain/context.ts';
import { deleteFinishedJobs } from '../store/jobs.ts';
import { KEEP_COMPLETED_MS, KEEP_FAILED_MS, SYSTEM_JOBS } from '../domain/jobs/system-jobs.ts';
import { handles, type JobHandler } from './handlers.ts';

const BATCH = 500;

export function pruneJobsHandler(ctx: Ctx): JobHandler<unknown> {
  return async (job) => {
    const now = ctx.clock.nowMs();
    for (const [state, keepMs] of [['completed', KEEP_COMPLETED_MS], ['failed', KEEP_FAILED_MS]] as const) {
      // bounded: at most 1000 batches a run; what is left goes at the next run
      for (let i = 0; i < 1000 && !job.signal.aborted; i++) {
        if ((await deleteFinishedJobs(ctx.db, state, now - keepMs, BATCH)) < BATCH) break;
      }
    }
  };
}

/** The jobs table's own upkeep (an entry of src/areas.ts). */
export const systemJobs = [
  handles(SYSTEM_JOBS.prune, (s: { ctx: Ctx }) => ({ handler: pruneJobsHandler(s.ctx) })),
];
