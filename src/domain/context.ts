import type { Db } from '../store/db.ts';
import type { Clock } from '../lib/clock.ts';
import type { LedgerObserver } from './billing/ledger-observer.ts';

/** What every domain operation needs: the store and the clock. */
export interface Ctx {
  db: Db;
  clock: Clock;
  /** Told after money moves or a budget changes (the gateway keeps its counters in step). */
  ledgerObserver?: LedgerObserver;
}
