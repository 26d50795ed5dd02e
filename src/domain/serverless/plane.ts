// The serverless data plane of one process, as services.ts builds it: the runtime (workers,
// health, billing, autoscaling: a job), the router of endpoint URLs, the workers' shared load
// (Redis across replicas) and this process's endpoint metrics counters.
import type { WorkerLoad } from './load.ts';
import type { EndpointMetrics } from './metrics.ts';
import type { ServerlessRuntime } from './reconciler.ts';
import type { ServerlessRouter } from './router.ts';

export interface ServerlessPlane {
  runtime: ServerlessRuntime;
  router: ServerlessRouter;
  load: WorkerLoad;
  metrics: EndpointMetrics;
}
