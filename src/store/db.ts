// Opens the store: PGlite on disk by default, PostgreSQL when a URL is given.
// Both speak the PostgreSQL dialect, so every query is written once.
import type { PGlite } from '@electric-sql/pglite';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import pg from 'pg';
import type { Db } from './db-types.ts';
import { lockPrivateDataDir, startEmbedded, type EmbeddedStart } from './embedded-start.ts';
import type { RemotePGlite } from './pglite-remote.ts';
import type { DataDirLock, LockHolder } from './data-dir-lock.ts';
import { keepPgliteFilesPrivate } from './pglite-modes.ts';
import { MIGRATIONS_DIR } from './migrations-dir.ts';
import { CONNECT_TIMEOUT_MS, connectOrExplain } from './pg-connect.ts';

export type { Db, DbOrTx, Tx } from './db-types.ts';

// bigint columns come back as strings from node-postgres by default; keep them exact.
pg.types.setTypeParser(20, (v) => v);

export interface Store {
  db: Db;
  kind: 'pglite' | 'postgres';
  databaseUrl?: string;
  /** Resolves if the embedded database's thread dies while open: the process cannot go on. */
  failure?: Promise<Error>;
  /** Runs a procedure next to the data (embedded store on its worker thread only). */
  procedure?: <T>(name: string, args: unknown) => Promise<T>;
  /** PGlite's directory on disk (embedded, not in memory). */
  dataDir?: string;
  /** Embedded on disk: the lock of a process that was killed holding the data dir, taken over. */
  lockTakenOverFrom?: LockHolder;
  /** The PGlite handle (embedded only), used by tests to dump/clone a migrated store. */
  pglite?: { dumpDataDir(compression: 'gzip' | 'none'): Promise<Blob | File> };
  close(): Promise<void>;
}

export interface StoreOptions {
  databaseUrl?: string | undefined;
  dataDir?: string | undefined; // PGlite directory; undefined = in memory
  loadDataDir?: Blob | File | undefined; // PGlite: start from a dump (tests)
  poolSize?: number;
  /** PGlite on a worker thread (default) or on the calling thread. */
  pgliteThread?: boolean;
  /** Modules whose `procedures` the worker thread can run (Store.procedure). */
  procedures?: string[];
  /** What this process runs, recorded in the data dir's lock for a process refused (`serve`, …). */
  command?: string;
  /** PGlite: PostgreSQL's shared_buffers (GANTRY_PGLITE_SHARED_BUFFERS); default DEFAULT_SHARED_BUFFERS */
  sharedBuffers?: string | undefined;
  /** The database thread, started earlier with these same options (embedded-start.ts). */
  started?: EmbeddedStart | undefined;
}

export async function openStore(opts: StoreOptions): Promise<Store> {
  if (opts.databaseUrl) {
    // A connection that cannot be made within a second fails (503 to the client) instead of
    // holding the request until the database returns.
    const pool = new pg.Pool({ connectionString: opts.databaseUrl, max: opts.poolSize ?? 10, connectionTimeoutMillis: 1000 });
    // A client dropped by the server (restart, failover, admin termination) must not crash
    // the process, idle or checked out: an idle one is discarded by the pool; one checked out
    // between the queries of a transaction emits 'error' with no pool listener attached, and
    // an unhandled 'error' event ends the process. Its next query then fails, the transaction
    // is abandoned (the server rolled it back) and the pool drops the broken client.
    pool.on('error', () => {});
    pool.on('connect', (client) => client.on('error', () => {}));
    const db = drizzlePg(pool) as unknown as Db;
    return { db, kind: 'postgres', databaseUrl: opts.databaseUrl, close: () => pool.end() };
  }
  // On disk, the data dir is this process's alone (data-dir-lock.ts) and private to its user;
  // the lock comes before PGlite touches a file (embedded-start.ts).
  if (opts.pgliteThread === false) return openInProcess(opts);
  const started = opts.started ?? startEmbedded(opts);
  const client = await ready(started.remote, started.lock);
  return pgliteStore(client, started.lock, started.dataDir, {
    failure: client.failure,
    ...(opts.procedures?.length ? { procedure: (name: string, args: unknown) => client.procedure(name, args) } : {}),
  });
}

/** PGlite on the calling thread (pgliteThread: false): the lock first, as on a thread. */
async function openInProcess(opts: StoreOptions): Promise<Store> {
  const lock = lockPrivateDataDir(opts.dataDir, opts.command);
  let opened: PGlite | undefined;
  try {
    if (opts.dataDir) keepPgliteFilesPrivate(); // the worker thread does this for itself
    const [{ PGlite }, { pgliteOptions }] = await Promise.all([import('@electric-sql/pglite'), import('./pglite-options.ts')]);
    opened = new PGlite(pgliteOptions(opts));
  } catch (e) {
    lock?.release();
    throw e;
  }
  return pgliteStore(await ready(opened, lock), lock, opts.dataDir, {});
}

/** Waits for the database; if it fails, no thread of ours may touch the files once the lock is gone. */
async function ready<T extends { waitReady: Promise<void>; close(): Promise<void> }>(client: T, lock: DataDirLock | undefined): Promise<T> {
  try {
    await client.waitReady;
    return client;
  } catch (e) {
    await client.close().catch(() => {});
    lock?.release();
    throw e;
  }
}

function pgliteStore(client: PGlite | RemotePGlite, lock: DataDirLock | undefined, dataDir: string | undefined, extra: Pick<Store, 'failure' | 'procedure'>): Store {
  const db = drizzlePglite(client as unknown as PGlite) as unknown as Db;
  return {
    db, kind: 'pglite', pglite: client, ...(dataDir ? { dataDir } : {}), ...extra,
    ...(lock?.takenOverFrom ? { lockTakenOverFrom: lock.takenOverFrom } : {}),
    close: async () => {
      try {
        await client.close();
      } finally {
        lock?.release();
      }
    },
  };
}

// A fixed key so two replicas starting at once on one PostgreSQL migrate one at a time.
const MIGRATION_LOCK = 727001;

export async function migrateStore(store: Store): Promise<void> {
  if (store.kind === 'pglite') {
    await migratePglite(store.db as never, { migrationsFolder: MIGRATIONS_DIR });
    return;
  }
  // Session-level advisory locks belong to one connection, so migrate on a dedicated client.
  // The start's first connection: a server down, a database missing or a login refused is
  // said in one sentence (DatabaseConnectError), not as node-postgres' stack trace.
  const client = new pg.Client({ connectionString: store.databaseUrl, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  await connectOrExplain(client, store.databaseUrl!);
  try {
    await client.query('select pg_advisory_lock($1)', [MIGRATION_LOCK]);
    await migratePg(drizzlePg(client), { migrationsFolder: MIGRATIONS_DIR });
  } finally {
    await client.end();
  }
}
