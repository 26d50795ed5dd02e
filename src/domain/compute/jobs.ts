// The compute area's job types: the reconciler's pass and the driver's readings. Handled in
// src/jobs/compute-reconciler.ts and compute-sample.ts (the area's entry of src/areas.ts).
import { defineJob, NoPayload } from '../jobs/job-type.ts';

export const COMPUTE_JOBS = {
  /**
   * One reconciler pass over every due instance (domain/compute/reconciler.ts). The instance
   * row stays the unit of work with its own lease; this job only makes sure a pass runs
   * every GANTRY_RECONCILE_INTERVAL_MS somewhere, one at a time across replicas.
   */
  reconcile: defineJob({
    name: 'compute.reconcile', payload: NoPayload, everyMs: 1000, concurrency: 1, leaseMs: 30_000,
    retry: { maxAttempts: 1, backoff: { firstMs: 1000, factor: 2, maxMs: 60_000 } },
  }),
  /**
   * The compute driver's readings (domain/compute/gpu-inventory.ts, metrics.ts): the inventory
   * of its cluster from its GPUs, and a usage sample of every running instance; old samples
   * pruned. Recurring: due at once on a new store, and after a restart when its last run was
   * 15 s or more before.
   */
  sample: defineJob({
    name: 'compute.sample', payload: NoPayload, everyMs: 15_000, concurrency: 1, leaseMs: 60_000,
    retry: { maxAttempts: 1, backoff: { firstMs: 15_000, factor: 2, maxMs: 120_000 } },
  }),
};
