// The handler of `compute.reconcile` (domain/compute/jobs.ts): one reconciler pass over the
// instances that are due. The job is a recurring singleton, so a pass runs every
// GANTRY_RECONCILE_INTERVAL_MS on one replica at a time; inside it each instance is still
// leased on its own row (domain/compute/reconciler.ts), the unit of work.
import type { Compute } from '../domain/compute/compute.ts';
import { reconcileDue } from '../domain/compute/reconciler.ts';
import type { Config } from '../config.ts';
import { COMPUTE_JOBS } from '../domain/compute/jobs.ts';
import { handles, type JobHandler } from './handlers.ts';
import { computeSampleHandler } from './compute-sample.ts';
import type { Logger } from '../lib/logger.ts';

export function computeReconcileHandler(c: Compute, log: Logger): JobHandler<unknown> {
  return async () => {
    await reconcileDue(c, {
      onError: (id, err) => log.error({ err, instanceId: id }, 'reconcile failed; will retry'),
      onLogError: (id, err) => log.error({ err, instanceId: id }, 'reading the workload\'s log failed; will read it again'),
      onOrphans: (ids) => log.warn({ workloads: ids }, 'removing workloads of the driver that have no instance or worker row'),
      onSweepError: (err) => log.error({ err }, 'listing the driver\'s workloads failed; will sweep orphans again'),
    });
  };
}

/** The compute area's jobs: the reconciler's pass, every reconcile interval; the driver's readings (an entry of src/areas.ts). */
export const computeJobs = [
  handles(COMPUTE_JOBS.reconcile, (s: { compute: Compute; config: Config; log: Logger }) => ({
    handler: computeReconcileHandler(s.compute, s.log), everyMs: s.config.reconcileIntervalMs,
  })),
  handles(COMPUTE_JOBS.sample, (s: { compute: Compute; log: Logger }) => ({ handler: computeSampleHandler(s.compute, s.log) })),
];
