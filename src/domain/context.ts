import type { Db } from '../store/db.ts';
import type { Clock } from '../lib/clock.ts';
import { ChangeBus } from './changes.ts';
import { tableJobQueue, type JobQueue } from './jobs/queue.ts';

/**
 * What every domain operation needs: the store, the clock, the channel its changes go out
 * on, and the job queue its background work is enqueued on (jobs/queue.ts).
 */
export interface Ctx {
  db: Db;
  clock: Clock;
  changes: ChangeBus;
  jobs: JobQueue;
}

/**
 * A context for work outside a running app (first-start seeding, the admin CLI, the
 * database thread's procedures): its changes reach no one, since no cache exists yet, and
 * the jobs it enqueues are rows a serving process's runner takes at its next poll.
 */
export function standaloneCtx(db: Db, clock: Clock): Ctx {
  return { db, clock, changes: new ChangeBus(), jobs: tableJobQueue(db, clock) };
}
