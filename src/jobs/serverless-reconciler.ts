// The handler of `serverless.reconcile` (domain/jobs/catalog.ts): one pass of the serverless runtime
// over every endpoint. A recurring singleton: one replica runs it at a time.
import type { ServerlessRuntime } from '../domain/serverless/reconciler.ts';
import type { JobHandler } from './runner.ts';
import type { PayloadOf } from '../domain/jobs/catalog.ts';

export function serverlessReconcileHandler(runtime: ServerlessRuntime): JobHandler<PayloadOf<'serverless.reconcile'>> {
  return async () => {
    await runtime.reconcileAll();
  };
}
