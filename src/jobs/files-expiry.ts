// The handler of `files.expire` (domain/jobs/catalog.ts): one sweep of the files due for removal.
import { sweepFiles, type Files } from '../domain/files/files.ts';
import type { PayloadOf } from '../domain/jobs/catalog.ts';
import type { JobHandler, JobHandlers } from './runner.ts';
import type { HandlerDeps } from './handlers.ts';

export function filesExpireHandler(files: Files): JobHandler<PayloadOf<'files.expire'>> {
  return async (job) => {
    await sweepFiles(files, job.signal);
  };
}

/** The files area's job (an entry of src/areas.ts). */
export const filesJobs = (d: HandlerDeps) => ({
  'files.expire': { handler: filesExpireHandler(d.files) },
}) satisfies Partial<JobHandlers>;
