// The handler of `responses.prune` (domain/responses/jobs.ts): remove stored responses past their keep time.
import { pruneResponses, type Responses } from '../domain/responses/responses.ts';
import { RESPONSES_JOBS } from '../domain/responses/jobs.ts';
import { handles, type JobHandler } from './handlers.ts';

export function responsesPruneHandler(responses: Responses): JobHandler<unknown> {
  return async (job) => {
    await pruneResponses(responses, job.signal);
  };
}

/** Stored responses' expiry (the Responses API, under openai/) (an entry of src/areas.ts). */
export const responsesJobs = [
  handles(RESPONSES_JOBS.prune, (s: { responses: Responses }) => ({ handler: responsesPruneHandler(s.responses) })),
];
