// Starting the embedded database's thread, with what it must have first: the data dir's lock
// (no thread of ours touches PGlite's files without it) and private permissions. Kept free of
// heavy imports so `gantry serve` can call it before it loads its ~1,000 modules: the database
// thread then loads PGlite and runs initdb (first start) or recovery while this thread loads
// the app, instead of after it (store/db.ts adopts the handle).
import { RemotePGlite } from './pglite-remote.ts';
import { lockDataDir, type DataDirLock } from './data-dir-lock.ts';
import { ensurePrivateDir, tightenTree } from '../lib/private-files.ts';
import { holdsDatabase } from './pglite-template.ts';
import { compiledPgliteModule } from './pglite-artifacts.ts';

export interface EmbeddedInit {
  dataDir?: string | undefined;
  loadDataDir?: Blob | File | undefined;
  sharedBuffers?: string | undefined;
  procedures?: string[] | undefined;
  command?: string | undefined;
  /** a migrated empty database (pglite-template.ts) to copy in when the data dir holds none yet */
  template?: string | undefined;
}

export interface EmbeddedStart {
  remote: RemotePGlite;
  lock: DataDirLock | undefined;
  dataDir: string | undefined;
}

/** The data dir made private and locked for this process (none in memory). The lock is released if tightening fails. */
export function lockPrivateDataDir(dataDir: string | undefined, command = 'gantry'): DataDirLock | undefined {
  if (!dataDir) return undefined;
  ensurePrivateDir(dataDir);
  const lock = lockDataDir(dataDir, command);
  try {
    tightenTree(dataDir);
  } catch (e) {
    lock.release();
    throw e;
  }
  return lock;
}

/** Takes the lock and starts the thread (not waiting for it to be ready). Throws, lock released, if either fails. */
export function startEmbedded(opts: EmbeddedInit): EmbeddedStart {
  const lock = lockPrivateDataDir(opts.dataDir, opts.command);
  try {
    const fromTemplate = opts.dataDir && opts.template && !opts.loadDataDir && !holdsDatabase(opts.dataDir) ? opts.template : undefined;
    const remote = new RemotePGlite({
      dataDir: opts.dataDir, loadDataDir: opts.loadDataDir, template: fromTemplate, sharedBuffers: opts.sharedBuffers, procedures: opts.procedures ?? [],
      wasmModule: compiledPgliteModule(),
    });
    return { remote, lock, dataDir: opts.dataDir };
  } catch (e) {
    lock?.release();
    throw e;
  }
}
