// The handler of `files.expire` (domain/files/jobs.ts): one sweep of the files due for removal.
import { sweepFiles, type Files } from '../domain/files/files.ts';
import { FILES_JOBS } from '../domain/files/jobs.ts';
import { handles, type JobHandler } from './handlers.ts';

export function filesExpireHandler(files: Files): JobHandler<unknown> {
  return async (job) => {
    await sweepFiles(files, job.signal);
  };
}

/** The files area's job (an entry of src/areas.ts). */
export const filesJobs = [
  handles(FILES_JOBS.expire, (s: { files: Files }) => ({ handler: filesExpireHandler(s.files) })),
];
