// Durable jobs (src/jobs): one row per job. The runner's poll is one indexed query over the
// rows that can start (`jobs_due`); the rules are in src/jobs/README.md.
import { sql } from 'drizzle-orm';
import { pgTable, text, bigint, integer, jsonb, index, uniqueIndex } from 'drizzle-orm/pg-core';

const ms = (name: string) => bigint(name, { mode: 'number' });

export const jobs = pgTable('jobs', {
  id: text('id').primaryKey(),
  /** a job type's name (src/domain/jobs/job-type.ts; every area's are src/areas.ts JOB_TYPES) */
  name: text('name').notNull(),
  payload: jsonb('payload').notNull(),
  /** queued | running | completed | failed (JOB_STATES, src/jobs/states.ts) */
  state: text('state').notNull(),
  /**
   * When a worker may take the job: a queued job's start time, or a running job's lease
   * expiry (a worker that died leaves a lease that runs out, and the job is taken over).
   * One column, so that the poll is one range scan over one index.
   */
  dueAtMs: ms('due_at_ms').notNull(),
  /** the runner holding the lease (running), or the last one that did */
  leaseOwner: text('lease_owner'),
  /** starts so far (a lease that ran out counts); a recurring job counts failures in a row */
  attempts: integer('attempts').notNull().default(0),
  /** at most one queued or running job per (name, singleton key) */
  singletonKey: text('singleton_key'),
  lastError: text('last_error'),
  createdAtMs: ms('created_at_ms').notNull(),
  updatedAtMs: ms('updated_at_ms').notNull(),
  finishedAtMs: ms('finished_at_ms'),
}, (t) => [
  index('jobs_due').on(t.name, t.dueAtMs).where(sql`state in ('queued', 'running')`),
  uniqueIndex('jobs_singleton').on(t.name, t.singletonKey).where(sql`singleton_key is not null and state in ('queued', 'running')`),
  index('jobs_state').on(t.state, t.id),
]);
