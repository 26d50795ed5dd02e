// Makes the embedded database's template (pglite-template.ts says what it is and why) at
// `npm install` (src/postinstall.ts): a store opened on a fresh directory, migrated and shut
// down cleanly, then renamed into place whole. Apart from pglite-template.ts, which the
// database thread loads to copy the template in: this file opens a store (db.ts), which that
// thread never needs.
import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { LOCK_FILE } from './data-dir-lock.ts';
import { migrateStore, openStore } from './db.ts';
import { CACHE_DIR, templatePath } from './pglite-template.ts';

/** Makes the template (in a directory of its own, renamed into place whole) and removes stale ones. */
export async function buildTemplate(cacheDir = CACHE_DIR): Promise<string> {
  mkdirSync(cacheDir, { recursive: true });
  const dir = templatePath(cacheDir);
  const tmp = `${dir}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    const store = await openStore({ dataDir: tmp, pgliteThread: false });
    try {
      await migrateStore(store);
    } finally {
      await store.close(); // a clean shutdown: a checkpoint, nothing left to recover
    }
    rmSync(join(tmp, LOCK_FILE), { force: true }); // the build's own lock: a copy must never overwrite a start's
    rmSync(dir, { recursive: true, force: true }); // one an earlier install made for the same version
    renameSync(tmp, dir); // a start never finds a half-made template
  } catch (e) {
    rmSync(tmp, { recursive: true, force: true });
    throw e;
  }
  for (const f of readdirSync(cacheDir)) if (/^pglite-/.test(f) && join(cacheDir, f) !== dir) rmSync(join(cacheDir, f), { recursive: true, force: true });
  return dir;
}
