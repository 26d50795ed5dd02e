// The handler of `files.expire` (domain/jobs/catalog.ts): one sweep of the files due for removal.
import type { FileService } from '../domain/files/files.ts';
import type { PayloadOf } from '../domain/jobs/catalog.ts';
import type { JobHandler } from './runner.ts';

export function filesExpireHandler(files: FileService): JobHandler<PayloadOf<'files.expire'>> {
  return async (job) => {
    await files.sweep(job.signal);
  };
}
