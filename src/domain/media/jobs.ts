// The media area's job types (src/jobs/media-tasks.ts): an async task's rendering, and the
// sweep of stranded and ended tasks and uploads.
import { Type } from 'typebox';
import { defineJob, NoPayload } from '../jobs/job-type.ts';

export const MEDIA_JOBS = {
  /**
   * One async media task (txt2img, txt2speech; jobs/media-tasks.ts): renders its outputs
   * (idempotent: the same blobs again after a crash) and ends the task once, in the
   * transaction that completes the job (charged on success, released on failure). The last
   * attempt, or a refusal that cannot pass, fails the task instead of retrying.
   */
  task: defineJob({
    name: 'media.task', payload: Type.Object({ taskId: Type.String({ minLength: 1 }) }, { additionalProperties: false }),
    singleton: true, singletonKey: (p) => p.taskId, concurrency: 4, leaseMs: 120_000,
    retry: { maxAttempts: 5, backoff: { firstMs: 2000, factor: 4, maxMs: 300_000 } },
  }),
  /**
   * Fails (unbilled, hold released, announced) the tasks whose media.task job the runner
   * failed without the handler ending them: every start's process died (kill -9, lost
   * replicas) until the attempts ran out. Then removes tasks ended more than
   * GANTRY_MEDIA_TASK_TTL_DAYS ago, with their outputs, and team uploads a dying process left
   * unavailable (status 0) for GANTRY_MEDIA_UPLOAD_STALE_HOURS, with their bytes.
   */
  sweep: defineJob({
    name: 'media.tasks.sweep', payload: NoPayload, everyMs: 60_000, concurrency: 1, leaseMs: 120_000,
    retry: { maxAttempts: 1, backoff: { firstMs: 60_000, factor: 2, maxMs: 3_600_000 } },
  }),
};
