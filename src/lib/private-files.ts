// The data dir holds secrets (the operator token, the sealing key, every tenant's usage):
// only its owner may read it. Directories 0700, files 0600, whatever the process umask.
import { chmodSync, closeSync, constants, fsyncSync, lstatSync, mkdirSync, openSync, readdirSync, renameSync, statSync, unlinkSync, writeSync, accessSync } from 'node:fs';
import { dirname, join, basename } from 'node:path';
import { randomBytes } from 'node:crypto';

export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;
/** Permission bits for group and others: none of them may be set under the data dir. */
export const SHARED_BITS = 0o077;

/** The data dir cannot be used (missing rights, not a directory, held by another process). */
export class DataDirError extends Error {
  override name = 'DataDirError';
}

/**
 * Create `dir` (0700) if missing, or take group/other access away from an existing one we
 * own, and check that this process can write in it. Throws a sentence naming the dir.
 */
export function ensurePrivateDir(dir: string): void {
  try {
    mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
    const st = statSync(dir);
    if (!st.isDirectory()) throw new Error('it is not a directory');
    if ((st.mode & SHARED_BITS) !== 0 && st.uid === process.getuid?.()) chmodSync(dir, PRIVATE_DIR_MODE);
    accessSync(dir, constants.W_OK | constants.X_OK);
  } catch (e) {
    throw new DataDirError(`cannot use the data directory ${dir}: ${(e as Error).message}`, { cause: e });
  }
}

/**
 * Take group/other bits off everything under `dir` (files and directories we own; symlinks
 * are not followed). Older versions left PGlite's files 0666; one pass at start fixes them.
 */
export function tightenTree(dir: string): void {
  const uid = process.getuid?.();
  const walk = (path: string): void => {
    let st: ReturnType<typeof lstatSync>;
    try {
      st = lstatSync(path);
    } catch {
      return; // removed while we walked
    }
    if (st.isSymbolicLink() || st.uid !== uid) return;
    if ((st.mode & SHARED_BITS) !== 0) chmodSync(path, st.mode & 0o7777 & ~SHARED_BITS);
    if (st.isDirectory()) for (const name of readdirSync(path)) walk(join(path, name));
  };
  walk(dir);
}

/**
 * Replace `path` with `content` atomically: a reader sees the old file or the new one, never
 * a part, and a crash leaves one of them. The file is 0600 from its creation on.
 */
export function writePrivateFileAtomic(path: string, content: string): void {
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  const fd = openSync(tmp, 'wx', PRIVATE_FILE_MODE);
  try {
    const buf = Buffer.from(content);
    let off = 0;
    while (off < buf.length) off += writeSync(fd, buf, off);
    fsyncSync(fd); // the bytes are on disk before the name points at them
  } catch (e) {
    closeSync(fd);
    unlinkSync(tmp);
    throw e;
  }
  closeSync(fd);
  try {
    chmodSync(tmp, PRIVATE_FILE_MODE); // a umask can only take bits away; say exactly what we mean
    renameSync(tmp, path);
  } catch (e) {
    try { unlinkSync(tmp); } catch { /* already gone */ }
    throw e;
  }
  try {
    const dirFd = openSync(dirname(path), 'r');
    try { fsyncSync(dirFd); } finally { closeSync(dirFd); } // the rename itself survives power loss
  } catch { /* not every platform can fsync a directory */ }
}
