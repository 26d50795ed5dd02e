// The handler of `serverless.reconcile` (domain/serverless/jobs.ts): one pass of the serverless runtime
// over every endpoint. A recurring singleton: one replica runs it at a time.
import type { ServerlessRuntime } from '../domain/serverless/reconciler.ts';
import type { Config } from '../config.ts';
import { SERVERLESS_JOBS } from '../domain/serverless/jobs.ts';
import type { ServerlessPlane } from '../domain/serverless/plane.ts';
import { handles, type JobHandler } from './handlers.ts';

export function serverlessReconcileHandler(runtime: ServerlessRuntime): JobHandler<unknown> {
  return async () => {
    await runtime.reconcileAll();
  };
}

/** The serverless area's job: the workers' pass, every reconcile interval (an entry of src/areas.ts). */
export const serverlessJobs = [
  handles(SERVERLESS_JOBS.reconcile, (s: { serverlessRuntime: ServerlessPlane; config: Config }) => ({
    handler: serverlessReconcileHandler(s.serverlessRuntime.runtime), everyMs: s.config.reconcileIntervalMs,
  })),
];
