// The handler of `compute.reconcile` (domain/jobs/catalog.ts): one reconciler pass over the
// instances that are due. The job is a recurring singleton, so a pass runs every
// GANTRY_RECONCILE_INTERVAL_MS on one replica at a time; inside it each instance is still
// leased on its own row (domain/compute/reconciler.ts), the unit of work.
import type { Compute } from '../domain/compute/compute.ts';
import { reconcileDue } from '../domain/compute/reconciler.ts';
import type { JobHandler, JobHandlers } from './runner.ts';
import type { PayloadOf } from '../domain/jobs/catalog.ts';
import type { HandlerDeps } from './handlers.ts';
import { computeSampleHandler } from './compute-sample.ts';
import type { Logger } from '../lib/logger.ts';

export function computeReconcileHandler(c: Compute, log: Logger): JobHandler<PayloadOf<'compute.reconcile'>> {
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
export const computeJobs = (d: HandlerDeps) => ({
  'compute.reconcile': { handler: computeReconcileHandler(d.compute, d.log), everyMs: d.config.reconcileIntervalMs },
  'compute.sample': { handler: computeSampleHandler(d.compute, d.log) },
}) satisfies Partial<JobHandlers>;
