import type { Db } from '../store/db.ts';
import type { Clock } from '../lib/clock.ts';
import { ChangeBus } from './changes.ts';

/** What every domain operation needs: the store, the clock, and the channel its changes go out on. */
export interface Ctx {
  db: Db;
  clock: Clock;
  changes: ChangeBus;
}

/**
 * A context for work outside a running app (first-start seeding, the admin CLI, the
 * database thread's procedures): its changes reach no one, since no cache exists yet.
 */
export function standaloneCtx(db: Db, clock: Clock): Ctx {
  return { db, clock, changes: new ChangeBus() };
}
