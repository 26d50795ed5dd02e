// The handler of `compute.sample` (domain/compute/jobs.ts), every 15 s on one replica at a
// time: the driver's cluster's inventory from its GPUs (domain/compute/gpu-inventory.ts), a
// usage sample of every running instance and the pruning of old ones
// (domain/compute/metrics.ts), and the disk limits the driver holds workloads to where the
// engine does not (drivers/types.ts enforceLimits: a workload over one is stopped, and its
// instance or worker then fails `disk_limit_exceeded`). Each step fails alone: an nvidia-smi
// that cannot be read leaves the inventory as it was and the samples are still taken, and
// the reverse.
import type { Compute } from '../domain/compute/compute.ts';
import { syncDriverInventory } from '../domain/compute/gpu-inventory.ts';
import { pruneInstanceMetrics, sampleInstanceMetrics } from '../domain/compute/metrics.ts';
import type { Logger } from '../lib/logger.ts';
import type { JobHandler } from './handlers.ts';

export function computeSampleHandler(c: Compute, log: Logger): JobHandler<unknown> {
  return async () => {
    try {
      const sync = await syncDriverInventory(c);
      if (sync?.missingCluster) {
        log.warn({ clusterId: sync.clusterId }, 'the compute driver\'s cluster is not in the catalogue: create it (POST /admin/v1/gpu/clusters) for its products to follow the GPUs');
      } else if (sync?.changed.length) {
        log.warn({ clusterId: sync.clusterId, gpus: sync.gpus, changed: sync.changed, unmatched: sync.unmatched }, 'inventory set from the compute driver\'s GPUs');
      }
    } catch (err) {
      log.error({ err }, 'reading the compute driver\'s GPUs failed; the inventory stays as it was');
    }
    await sampleInstanceMetrics(c).catch((err: unknown) => log.error({ err }, 'sampling the instances\' usage failed; will sample again'));
    await c.driver.enforceLimits?.().then(
      (breaches) => breaches.length && log.warn({ breaches }, 'stopped workloads over a disk limit of their spec'),
      (err: unknown) => log.error({ err }, 'measuring the workloads\' disk use failed; will measure again'),
    );
    await pruneInstanceMetrics(c);
  };
}
