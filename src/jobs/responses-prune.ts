// The handler of `responses.prune` (domain/jobs/catalog.ts): remove stored responses past their keep time.
import type { ResponseStore } from '../domain/responses/responses.ts';
import type { PayloadOf } from '../domain/jobs/catalog.ts';
import type { JobHandler } from './runner.ts';

export function responsesPruneHandler(responses: ResponseStore): JobHandler<PayloadOf<'responses.prune'>> {
  return async (job) => {
    await responses.prune(job.signal);
  };
}
