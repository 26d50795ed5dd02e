// The handler of `responses.prune` (domain/jobs/catalog.ts): remove stored responses past their keep time.
import { pruneResponses, type Responses } from '../domain/responses/responses.ts';
import type { PayloadOf } from '../domain/jobs/catalog.ts';
import type { JobHandler, JobHandlers } from './runner.ts';
import type { HandlerDeps } from './handlers.ts';

export function responsesPruneHandler(responses: Responses): JobHandler<PayloadOf<'responses.prune'>> {
  return async (job) => {
    await pruneResponses(responses, job.signal);
  };
}

/** Stored responses' expiry (the Responses API, under openai/) (an entry of src/areas.ts). */
export const responsesJobs = (d: HandlerDeps) => ({
  'responses.prune': { handler: responsesPruneHandler(d.responses) },
}) satisfies Partial<JobHandlers>;
