// One process owns an embedded store's data directory. Two PGlite instances on one directory
// both start and overwrite each other's pages and journal (usage events were lost), so every
// opener of a data dir on disk takes this lock first: `serve`, `migrate`, and the admin
// commands that open the store directly.
//
// The lock is a kernel file lock (fcntl), taken through SQLite on `<data dir>/gantry.lock`
// (node:sqlite is the only way to such a lock from Node without a native addon). The kernel
// drops it when the process ends, however it ends: a process killed with kill -9 leaves no
// lock behind, pid reuse cannot fool it, and it works between containers sharing a volume.
// The file also records who holds the lock, for the message the next opener gets; a record
// still there when the lock is free names a process that did not shut down cleanly.
import { DatabaseSync } from 'node:sqlite';
import { chmodSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DataDirError } from '../lib/private-files.ts';

export const LOCK_FILE = 'gantry.lock';

export interface LockHolder {
  pid: number;
  host: string;
  /** What the holder runs (`serve`, `migrate`, `admin token rotate`). */
  command: string;
  /** ISO time the holder took the lock. */
  since: string;
}

export class DataDirLockedError extends DataDirError {
  override name = 'DataDirLockedError';
  readonly dataDir: string;
  readonly holder: LockHolder | undefined;
  constructor(dataDir: string, holder: LockHolder | undefined) {
    const who = holder
      ? `another Gantry process (pid ${holder.pid} on ${holder.host}, running "${holder.command}" since ${holder.since})`
      : `another process (it left no record of itself in ${join(dataDir, LOCK_FILE)})`;
    super(`the data directory ${dataDir} is in use by ${who}; an embedded store is opened by one process at a time.`);
    this.dataDir = dataDir;
    this.holder = holder;
  }
}

export interface DataDirLock {
  /** Recorded by a holder that never released the lock (it was killed): this process took over. */
  readonly takenOverFrom: LockHolder | undefined;
  /** Give the directory up (a clean exit); safe to call twice. */
  release(): void;
}

// SQLITE_BUSY and SQLITE_LOCKED: another connection, in this process or another, holds it.
const BUSY_CODES = new Set([5, 6]);

/** Take the data dir's lock or throw DataDirLockedError at once (never waits). */
export function lockDataDir(dataDir: string, command: string): DataDirLock {
  const path = join(dataDir, LOCK_FILE);
  const db = new DatabaseSync(path, { timeout: 0 });
  let takenOverFrom: LockHolder | undefined;
  try {
    // Exclusive locking mode: once written, the lock is kept until the connection closes.
    db.exec('PRAGMA locking_mode = EXCLUSIVE');
    db.exec('BEGIN EXCLUSIVE');
    db.exec('CREATE TABLE IF NOT EXISTS holder (id INTEGER PRIMARY KEY CHECK (id = 1), pid INTEGER NOT NULL, host TEXT NOT NULL, command TEXT NOT NULL, since TEXT NOT NULL)');
    takenOverFrom = holderOf(db.prepare('SELECT pid, host, command, since FROM holder WHERE id = 1').get());
    db.prepare('INSERT OR REPLACE INTO holder (id, pid, host, command, since) VALUES (1, ?, ?, ?, ?)')
      .run(process.pid, hostname(), command, new Date().toISOString());
    db.exec('COMMIT'); // the record is on disk for whoever is refused; the lock stays
    chmodSync(path, 0o600);
  } catch (e) {
    db.close();
    if (BUSY_CODES.has((e as { errcode?: number }).errcode ?? -1)) throw new DataDirLockedError(dataDir, readHolder(path));
    throw new DataDirError(`cannot lock the data directory ${dataDir} (${path}): ${(e as Error).message}`, { cause: e });
  }
  let released = false;
  return {
    takenOverFrom,
    release() {
      if (released) return;
      released = true;
      try {
        db.exec('DELETE FROM holder'); // a clean exit leaves no record: nothing to take over
      } finally {
        db.close();
      }
    },
  };
}

/**
 * Who holds the lock, read without asking for it: `immutable=1` makes SQLite read the file
 * as it is on disk, taking no lock. Undefined if the record cannot be read.
 */
export function readHolder(path: string): LockHolder | undefined {
  const url = pathToFileURL(path);
  url.searchParams.set('immutable', '1');
  let db: DatabaseSync | undefined;
  try {
    db = new DatabaseSync(url, { readOnly: true });
    return holderOf(db.prepare('SELECT pid, host, command, since FROM holder WHERE id = 1').get());
  } catch {
    return undefined;
  } finally {
    db?.close();
  }
}

function holderOf(row: Record<string, unknown> | undefined): LockHolder | undefined {
  if (!row) return undefined;
  return { pid: Number(row.pid), host: String(row.host), command: String(row.command), since: String(row.since) };
}
