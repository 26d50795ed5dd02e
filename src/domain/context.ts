import type { Db } from '../store/db.ts';
import type { Clock } from '../lib/clock.ts';

/** What every domain operation needs: the store and the clock. */
export interface Ctx {
  db: Db;
  clock: Clock;
}
