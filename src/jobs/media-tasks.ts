// The handler of media.task (domain/jobs/catalog.ts): render a task's outputs into the blob
// store, then end the task in the transaction that completes the job (domain/media/tasks.ts
// endTaskTx). A rerun after a crash renders the same outputs again (the seed is fixed in the
// task; the keys are the task's), so the blobs are overwritten with the same bytes and the
// end, with its charge, happens once. And media.tasks.sweep's.
import type { MediaConfig } from '../config.ts';
import type { BlobStore } from '../store/blobs/index.ts';
import { endTaskTx, failStrandedTasks, findOpenTask, markTaskProcessing, pruneEndedTasks, type MediaTasks, type TaskOutput } from '../domain/media/tasks.ts';
import { removeStrandedUploads, type MediaCatalogue } from '../domain/media/catalogue.ts';
import { TASK_TYPES } from '../domain/media/codes.ts';
import { renderTxt2Img, type Txt2ImgTask } from '../domain/media/txt2img.ts';
import { renderTxt2Speech, type Txt2SpeechTask } from '../domain/media/txt2speech.ts';
import { TaskRefused } from '../domain/media/upstream.ts';
import { CATALOG, type PayloadOf } from '../domain/jobs/catalog.ts';
import type { JobHandler, JobHandlers } from './runner.ts';
import type { HandlerDeps } from './handlers.ts';

export interface MediaJobDeps {
  tasks: MediaTasks;
  blobs: BlobStore;
  config: MediaConfig;
}

export function mediaTaskHandler(d: MediaJobDeps): JobHandler<PayloadOf<'media.task'>> {
  const lastAttempt = CATALOG['media.task'].retry.maxAttempts;
  return async (job) => {
    const task = await findOpenTask(d.tasks, job.payload.taskId);
    if (!task) return; // ended (a test-mode task, or a start that ended it before a crash lost the job's completion)
    await markTaskProcessing(d.tasks, task.id, 10);
    let outputs: TaskOutput[];
    try {
      const prefix = `media/tasks/${task.teamId}/${task.id}`;
      if (task.taskType === TASK_TYPES.txt2img) {
        const pngs = await renderTxt2Img(task.request as Txt2ImgTask, d.config.imageUpstream, job.signal);
        outputs = await Promise.all(pngs.map(async (png, i) => {
          const key = `${prefix}/${i}.png`;
          await d.blobs.put(key, once(png), { contentType: 'image/png', signal: job.signal });
          return { kind: 'image' as const, key, type: 'png' };
        }));
      } else {
        const wavs = await renderTxt2Speech(task.request as Txt2SpeechTask, d.config.ttsVoices, d.config.espeak, job.signal);
        outputs = await Promise.all(wavs.map(async (wav, i) => {
          const key = `${prefix}/${i}.wav`;
          await d.blobs.put(key, once(wav), { contentType: 'audio/wav', signal: job.signal });
          return { kind: 'audio' as const, key, type: 'wav' };
        }));
      }
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
export function mediaSweepHandler(tasks: MediaTasks, catalogue: MediaCatalogue): JobHandler<PayloadOf<'media.tasks.sweep'>> {
  return async (job) => {
    await failStrandedTasks(tasks, job.signal);
    await pruneEndedTasks(tasks, job.signal);
    await removeStrandedUploads(catalogue, job.signal);
  };
}

async function* once(b: Buffer): AsyncGenerator<Uint8Array> {
  yield b;
}

/** The media area's jobs (an entry of src/areas.ts). */
export const mediaJobs = (d: HandlerDeps) => ({
  'media.task': { handler: mediaTaskHandler({ tasks: d.media.tasks, blobs: d.blobs, config: d.config.media }), concurrency: d.config.media.taskConcurrency },
  'media.tasks.sweep': { handler: mediaSweepHandler(d.media.tasks, d.media.catalogue) },
}) satisfies Partial<JobHandlers>;
