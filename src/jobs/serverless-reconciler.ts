// The handler of `serverless.reconcile` (domain/jobs/catalog.ts): one pass of the serverless runtime
// over every endpoint. A recurring singleton: one replica runs it at a time.
import type { ServerlessRuntime } from '../domain/serverless/reconciler.ts';
import type { JobHandler, JobHandlers } from './runner.ts';
import type { PayloadOf } from '../domain/jobs/catalog.ts';
import type { HandlerDeps } from './handlers.ts';

export function serverlessReconcileHandler(runtime: ServerlessRuntime): JobHandler<PayloadOf<'serverless.reconcile'>> {
  return async () => {
    await runtime.reconcileAll();
  };
}

/** The serverless area's job: the workers' pass, every reconcile interval (an entry of src/areas.ts). */
export const serverlessJobs = (d: HandlerDeps) => ({
  'serverless.reconcile': { handler: serverlessReconcileHandler(d.serverlessRuntime), everyMs: d.config.reconcileIntervalMs },
}) satisfies Partial<JobHandlers>;
