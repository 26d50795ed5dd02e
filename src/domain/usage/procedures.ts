// Usage recording as a procedure of the embedded database's thread (src/store/pglite-worker.ts):
// the gateway's writer sends records there, and the SQL for a batch of thousands is built
// next to the data instead of on the thread that serves HTTP. Same function, same rules.
import { systemClock } from '../../lib/clock.ts';
import { standaloneCtx } from '../context.ts';
import type { Db } from '../../store/db.ts';
import { recordUsage } from './record.ts';
import { decodeUsage } from './codec.ts';

/** Pass to openStore({ procedures }) so Store.procedure('recordUsage', …) runs there. */
export { USAGE_PROCEDURES } from './procedures-url.ts';

export const procedures = {
  // Business time travels in each record (atMs); the clock only stamps ids. The batch comes as
  // the journal's lines (codec.ts) and is decoded here, off the thread that serves HTTP.
  recordUsage: (db: Db, args: { lines: string[]; careful: boolean }) =>
    recordUsage(standaloneCtx(db, systemClock), args.lines.map(decodeUsage), args.careful),
};
