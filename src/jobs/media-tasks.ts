// The handler of media.task (domain/media/jobs.ts): render a task's outputs into the blob
// store, then end the task in the transaction that completes the job (domain/media/tasks.ts
// endTaskTx). A rerun after a crash renders the same outputs again (the seed is fixed in the
// task; the keys are the task's), so the blobs are overwritten with the same bytes and the
// end, with its charge, happens once. And media.tasks.sweep's.
import type { MediaConfig } from '../config.ts';
import type { BlobStore } from '../store/blobs/index.ts';
import { EDIT_LOST, endTaskTx, failStrandedTasks, findOpenTask, markTaskProcessing, pruneEndedTasks, type MediaTasks, type TaskOutput } from '../domain/media/tasks.ts';
import { removeStrandedUploads, type MediaCatalogue } from '../domain/media/catalogue.ts';
import { renderTaskOutputs } from '../domain/media/render.ts';
import { TaskRefused } from '../domain/media/upstream.ts';
import type { Config } from '../config.ts';
import type { PayloadOfType } from '../domain/jobs/job-type.ts';
import { MEDIA_JOBS } from '../domain/media/jobs.ts';
import type { Media } from '../domain/media/context.ts';
import type { Blobs } from '../domain/blobs/links.ts';
import { handles, type JobHandler } from './handlers.ts';

export interface MediaJobDeps {
  tasks: MediaTasks;
  blobs: BlobStore;
  config: MediaConfig;
}

export function mediaTaskHandler(d: MediaJobDeps): JobHandler<PayloadOfType<typeof MEDIA_JOBS.task>> {
  const lastAttempt = MEDIA_JOBS.task.retry.maxAttempts;
  return async (job) => {
    const task = await findOpenTask(d.tasks, job.payload.taskId);
    if (!task) return; // ended (a test-mode task, or a start that ended it before a crash lost the job's completion)
    if ((task.request as { inline?: boolean }).inline) {
      // an image edit's safety job: its request runs it and was due to end it long before now
      await job.completeWith((tx) => endTaskTx(d.tasks, tx, task.id, { ok: false, reason: EDIT_LOST }));
      return;
    }
    await markTaskProcessing(d.tasks, task.id, 10);
    let outputs: TaskOutput[];
    try {
      outputs = await renderTaskOutputs(d.tasks, task, job.signal);
    } catch (err) {
      if (job.signal.aborted) throw err; // the runner stops or lost the lease: the job runs again
      // a refusal that cannot pass, or the last attempt: the task fails (unbilled); else the job retries
      if (err instanceof TaskRefused || job.attempt >= lastAttempt) {
        await job.completeWith((tx) => endTaskTx(d.tasks, tx, task.id, { ok: false, reason: (err as Error).message }));
        return;
      }
      throw err;
    }
    await job.completeWith((tx) => endTaskTx(d.tasks, tx, task.id, { ok: true, outputs }));
  };
}

/** Fails the tasks stranded by their job, removes ended tasks and stranded uploads. */
export function mediaSweepHandler(tasks: MediaTasks, catalogue: MediaCatalogue): JobHandler<unknown> {
  return async (job) => {
    await failStrandedTasks(tasks, job.signal);
    await pruneEndedTasks(tasks, job.signal);
    await removeStrandedUploads(catalogue, job.signal);
  };
}

/** The media area's jobs (an entry of src/areas.ts). */
export const mediaJobs = [
  handles(MEDIA_JOBS.task, (s: { media: Media; blobs: Blobs; config: Config }) => ({
    handler: mediaTaskHandler({ tasks: s.media.tasks, blobs: s.blobs.store, config: s.config.media }), concurrency: s.config.media.taskConcurrency,
  })),
  handles(MEDIA_JOBS.sweep, (s: { media: Media }) => ({ handler: mediaSweepHandler(s.media.tasks, s.media.catalogue) })),
];
