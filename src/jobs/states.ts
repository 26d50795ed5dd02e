// The one home of a durable job's states (the jobs table's `state` column, the admin route's filter).
export const JOB_STATES = ['queued', 'running', 'completed', 'failed'] as const;
export type JobState = (typeof JOB_STATES)[number];
