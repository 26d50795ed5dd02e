// `gantry backup <dir>` and `gantry restore <dir>`: the embedded store (PGlite in the data dir)
// copied whole, and put back into an empty data dir.
//
// PGlite runs inside the one process that holds the data dir's lock (store/data-dir-lock.ts),
// so nothing outside a running server can read its database consistently: a backup takes the
// lock itself, which refuses while a server runs ("stop the server first"), and then copies
// the directory as it is. Nothing writes to it meanwhile, so the copy is exactly the store at
// that moment: the database's files (a store left by a killed server is a crash image that
// PostgreSQL's recovery opens, as the original would be opened), the usage journal not yet
// moved into the ledger (replayed by the restored server's start), `secret.key`, every
// credentials file, and the local blob store (file bytes, media) wherever it is.
// A backup is a directory: `data/` (the data dir), `blobs/` (a local blob store outside the
// data dir, if any) and `gantry-backup.json` (what it holds), written last and renamed into
// place whole, so a backup cut short is never mistaken for one.
// A backup holds regular files and directories only: a symbolic link (or a device, a FIFO, a
// socket) in one is refused by both commands, before anything is written, naming the entry. A
// restore would otherwise copy a link that points anywhere (outside the backup: /etc, another
// data dir) into the new data dir, where Gantry opens blobs and the database through it; and a
// backup of a data dir holding one would copy the link, not what it points to.
// PostgreSQL is backed up by PostgreSQL's tools (pg_dump, or continuous archiving for PITR),
// plus the secret key: both commands refuse with DATABASE_URL set, saying so.
import { cpSync, type Dirent, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import type { Config } from '../config.ts';
import { DataDirLockedError, LOCK_FILE, lockDataDir } from '../store/data-dir-lock.ts';
import { holdsDatabase } from '../store/pglite-template.ts';
import { MIGRATIONS_DIR } from '../store/migrations-dir.ts';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../lib/private-files.ts';

/** The name of the file that makes a directory a Gantry backup. */
export const MANIFEST = 'gantry-backup.json';
const FORMAT = 'gantry-backup';
const VERSION = 1;

export interface Manifest {
  format: typeof FORMAT;
  version: number;
  /** ISO time the copy was taken. */
  createdAt: string;
  /** The data dir it was taken from. */
  dataDir: string;
  /** The newest migration this Gantry knew: a restore by an older one is refused. */
  migration: string;
  /** Where the secret key was: the data dir's `secret.key`, or GANTRY_SECRET_KEY (not in the backup). */
  secretKey: 'secret.key' | 'GANTRY_SECRET_KEY' | 'none';
  /** Where file bytes were: in `data/` (the default blob dir), in `blobs/`, or in S3 (not in the backup). */
  blobs: 'data' | 'blobs' | 's3';
  files: number;
  bytes: number;
}

/** A refusal said in one sentence (exit 1), or a wrong command line (exit 2). */
export class BackupError extends Error {
  override name = 'BackupError';
  readonly exitCode: number;
  constructor(message: string, exitCode = 1) {
    super(message);
    this.exitCode = exitCode;
  }
}

const PG_BACKUP = 'back PostgreSQL up with its own tools (pg_dump -Fc, or continuous WAL archiving for point-in-time recovery), '
  + 'and keep the secret key with it (<data dir>/secret.key, or GANTRY_SECRET_KEY) and the credentials file: docs/production.md, "Backups"';

/** The newest migration of this checkout (migrations/meta/_journal.json). */
function newestMigration(): string {
  const journal = JSON.parse(readFileSync(join(MIGRATIONS_DIR, 'meta', '_journal.json'), 'utf8')) as { entries: { tag: string }[] };
  return journal.entries.at(-1)?.tag ?? '';
}

function knownMigrations(): string[] {
  const journal = JSON.parse(readFileSync(join(MIGRATIONS_DIR, 'meta', '_journal.json'), 'utf8')) as { entries: { tag: string }[] };
  return journal.entries.map((e) => e.tag);
}

/** Whether `child` is `parent` or inside it. */
function within(child: string, parent: string): boolean {
  const rel = relative(resolve(parent), resolve(child));
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/** What a directory holds, or undefined if it does not exist. Throws if it is something else. */
function entriesOf(path: string, what: string): string[] | undefined {
  if (!existsSync(path)) return undefined;
  if (!statSync(path).isDirectory()) throw new BackupError(`${what} ${path} exists and is not a directory`);
  return readdirSync(path);
}

function listed(names: string[]): string {
  return names.slice(0, 5).join(', ') + (names.length > 5 ? `, … (${names.length} entries)` : '');
}

function sizeOf(dir: string): { files: number; bytes: number } {
  let files = 0;
  let bytes = 0;
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!e.isFile()) continue;
    files++;
    bytes += statSync(join(e.parentPath, e.name)).size;
  }
  return { files, bytes };
}

/** What an entry that is neither a regular file nor a directory is, in words. */
function kindOf(e: Pick<Dirent, 'isFile' | 'isSymbolicLink' | 'isFIFO' | 'isSocket' | 'isBlockDevice' | 'isCharacterDevice'>, path: string): string {
  if (e.isSymbolicLink()) return `a symbolic link (to ${readlinkSync(path)})`;
  if (e.isFile()) return 'a regular file';
  if (e.isFIFO()) return 'a FIFO';
  if (e.isSocket()) return 'a socket';
  return e.isBlockDevice() || e.isCharacterDevice() ? 'a device' : 'not a regular file';
}

/**
 * Refuses `root` (a directory to copy) when it or anything under it is not a regular file or a
 * directory, naming the first such entry. Nothing is followed: a link is seen as a link.
 */
function onlyFilesAndDirectories(root: string, what: string): void {
  const top = lstatSync(root);
  if (!top.isDirectory()) throw new BackupError(`${what} ${root} is ${kindOf(top, root)}, not a directory: refused`);
  for (const e of readdirSync(root, { withFileTypes: true, recursive: true })) {
    if (e.isFile() || e.isDirectory()) continue;
    const path = join(e.parentPath, e.name);
    throw new BackupError(`${what} holds ${path}, which is ${kindOf(e, path)}: a backup holds regular files and directories only, `
      + 'so that nothing it copies can point outside it; refused, nothing was written');
  }
}

/**
 * cpSync of a tree checked by onlyFilesAndDirectories, checking again as it copies (an entry
 * swapped for a link meanwhile fails the copy, which its caller removes); `skip`: paths left out.
 */
function copyTree(src: string, dest: string, what: string, skip: ReadonlySet<string> = new Set()): void {
  cpSync(src, dest, {
    recursive: true, preserveTimestamps: true,
    filter: (from) => {
      if (skip.has(resolve(from))) return false;
      const st = lstatSync(from);
      if (resolve(from) !== resolve(src) && !st.isFile() && !st.isDirectory()) {
        throw new BackupError(`${what} holds ${from}, which is ${kindOf(st, from)}: a backup holds regular files and directories only; refused`);
      }
      return true;
    },
  });
}

function tempBeside(path: string, what: string): string {
  const tmp = join(dirname(path), `.${basename(path)}.${what}-${process.pid}-${randomBytes(4).toString('hex')}`);
  mkdirSync(tmp, { mode: PRIVATE_DIR_MODE });
  return tmp;
}

/** Renames the finished copy onto `target`: a new name, or an empty directory (rename(2) replaces it). */
function moveIntoPlace(tmp: string, target: string, what: string): void {
  try {
    renameSync(tmp, target);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOTEMPTY' || code === 'EEXIST') {
      throw new BackupError(`${what} ${target} is no longer empty: something wrote into it meanwhile; nothing was changed there`);
    }
    throw e;
  }
}

export function humanBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let v = n;
  let u = -1;
  do {
    v /= 1024;
    u++;
  } while (v >= 1024 && u < units.length - 1);
  return `${v.toFixed(1)} ${units[u]}`;
}

/** `gantry backup <dir>`: the stopped embedded store, copied into a new (or empty) directory. Returns what it printed. */
export function backup(config: Config, target: string): string {
  if (config.databaseUrl) throw new BackupError(`gantry backup copies the embedded store, and DATABASE_URL is set: ${PG_BACKUP}.`);
  const named = resolve(config.dataDir);
  const out = resolve(target);
  if (!holdsDatabase(named)) throw new BackupError(`nothing to back up: ${named} holds no embedded store (GANTRY_DATA_DIR says where it is)`);
  const dataDir = realpathSync(named); // GANTRY_DATA_DIR may be a link: what it points to is copied
  if (within(out, dataDir)) throw new BackupError(`the backup ${out} would be inside the data directory ${dataDir}: choose a directory outside it`);
  const existing = entriesOf(out, 'the backup target');
  if (existing?.length) throw new BackupError(`the backup target ${out} is not empty (${listed(existing)}): give a new or empty directory`);
  const separateBlobs = config.blobs.kind === 'local' && existsSync(config.blobs.dir) && !within(realpathSync(config.blobs.dir), dataDir)
    ? realpathSync(config.blobs.dir) : undefined;
  if (separateBlobs && within(out, separateBlobs)) throw new BackupError(`the backup ${out} would be inside the blob directory ${separateBlobs}: choose a directory outside it`);

  let lock: ReturnType<typeof lockDataDir>;
  try {
    lock = lockDataDir(dataDir, 'backup');
  } catch (e) {
    if (e instanceof DataDirLockedError) {
      throw new BackupError(`${e.message} A backup copies a stopped store: stop the server (it finishes the requests in flight), `
        + 'run gantry backup, then start it again. To back up without stopping, run Gantry on PostgreSQL and use pg_dump or PITR (docs/production.md, "Backups").');
    }
    throw e;
  }
  try {
    onlyFilesAndDirectories(dataDir, 'the data directory');
    if (separateBlobs) onlyFilesAndDirectories(separateBlobs, 'the blob directory');
  } catch (e) {
    lock.release();
    throw e;
  }
  mkdirSync(dirname(out), { recursive: true, mode: PRIVATE_DIR_MODE });
  const tmp = tempBeside(out, 'backup');
  try {
    const skip = new Set([join(dataDir, LOCK_FILE), join(dataDir, `${LOCK_FILE}-journal`)]);
    copyTree(dataDir, join(tmp, 'data'), 'the data directory', skip);
    if (separateBlobs) copyTree(separateBlobs, join(tmp, 'blobs'), 'the blob directory');
    const { files, bytes } = sizeOf(tmp);
    const manifest: Manifest = {
      format: FORMAT, version: VERSION, createdAt: new Date().toISOString(), dataDir, migration: newestMigration(),
      secretKey: config.secretKey ? 'GANTRY_SECRET_KEY' : existsSync(join(dataDir, 'secret.key')) ? 'secret.key' : 'none',
      blobs: config.blobs.kind === 's3' ? 's3' : separateBlobs ? 'blobs' : 'data',
      files, bytes,
    };
    writeFileSync(join(tmp, MANIFEST), JSON.stringify(manifest, null, 2) + '\n', { mode: PRIVATE_FILE_MODE });
    moveIntoPlace(tmp, out, 'the backup target');
    const lines = [`Backed up ${dataDir} to ${out}: ${files} files, ${humanBytes(bytes)}.`];
    if (lock.takenOverFrom) {
      lines.push(`The last server (pid ${lock.takenOverFrom.pid}) did not shut down cleanly: the copy is the store as it left it, `
        + 'which the restored server recovers at its start as this one would (its usage journal included).');
    }
    if (manifest.secretKey === 'GANTRY_SECRET_KEY') lines.push('The secret key is GANTRY_SECRET_KEY, not a file: keep it with this backup (a restore needs the same key).');
    if (manifest.blobs === 's3') lines.push(`File bytes are in the S3 bucket ${config.blobs.s3.bucket}, not in this backup: back the bucket up (versioning or replication).`);
    return lines.join('\n');
  } catch (e) {
    rmSync(tmp, { recursive: true, force: true });
    throw e;
  } finally {
    lock.release();
  }
}

function readManifest(source: string): Manifest {
  const path = join(source, MANIFEST);
  if (!existsSync(source)) throw new BackupError(`no backup at ${source}: it does not exist`);
  if (!existsSync(path)) throw new BackupError(`${source} is not a Gantry backup (it has no ${MANIFEST}); gantry backup <dir> makes one`);
  if (!lstatSync(path).isFile()) throw new BackupError(`${path} is ${kindOf(lstatSync(path), path)}: a backup's manifest is a regular file; refused`);
  let m: Manifest;
  try {
    m = JSON.parse(readFileSync(path, 'utf8')) as Manifest;
  } catch (e) {
    throw new BackupError(`${path} cannot be read as a backup's manifest: ${(e as Error).message}`);
  }
  if (m?.format !== FORMAT || typeof m.version !== 'number') throw new BackupError(`${path} is not a Gantry backup's manifest`);
  if (m.version > VERSION) throw new BackupError(`${source} was made by a newer Gantry (backup format ${m.version}; this one reads ${VERSION}): restore it with that version`);
  if (!holdsDatabase(join(source, 'data'))) throw new BackupError(`${source} is incomplete: ${join(source, 'data')} holds no database`);
  if (m.blobs === 'blobs' && !existsSync(join(source, 'blobs'))) throw new BackupError(`${source} is incomplete: its blob store (${join(source, 'blobs')}) is missing`);
  onlyFilesAndDirectories(join(source, 'data'), 'the backup');
  if (m.blobs === 'blobs') onlyFilesAndDirectories(join(source, 'blobs'), 'the backup');
  if (m.migration && !knownMigrations().includes(m.migration)) {
    throw new BackupError(`${source} was made by a newer Gantry: its store has migration ${m.migration}, which this version does not know `
      + '(migrations are forward-only): restore it with that version or a newer one');
  }
  return m;
}

/** The directory a restore writes: nonexistent or empty, else a refusal saying why. */
function emptyTarget(path: string, what: string, setting: string): void {
  const entries = entriesOf(path, what);
  if (entries?.length) {
    throw new BackupError(`${what} ${path} is not empty (${listed(entries)}): gantry restore writes only into an empty or new directory, `
      + `so that it never mixes two stores or overwrites one. Move it aside (mv ${path} ${path}.old) or set ${setting} to a new directory.`);
  }
}

/** `gantry restore <dir>`: a backup put into an empty or new data dir. Returns what it printed. */
export function restore(config: Config, source: string): string {
  if (config.databaseUrl) {
    throw new BackupError(`gantry restore restores the embedded store, and DATABASE_URL is set: restore PostgreSQL with its own tools (pg_restore, or your PITR recovery), `
      + 'then put the secret key back (<data dir>/secret.key or GANTRY_SECRET_KEY).');
  }
  const from = resolve(source);
  const m = readManifest(from);
  const dataDir = resolve(config.dataDir);
  emptyTarget(dataDir, 'the data directory', 'GANTRY_DATA_DIR');
  const blobDir = resolve(config.blobs.dir);
  const blobsInside = within(blobDir, dataDir);
  if (m.blobs === 'blobs') {
    if (config.blobs.kind === 's3') {
      throw new BackupError(`${from} holds a local blob store (${join(from, 'blobs')}), and this configuration keeps blobs in S3: `
        + 'restore with GANTRY_BLOB_STORE=local, or copy those files into the bucket first');
    }
    if (!blobsInside) emptyTarget(blobDir, 'the blob directory', 'GANTRY_BLOB_DIR');
  }
  mkdirSync(dirname(dataDir), { recursive: true, mode: PRIVATE_DIR_MODE });
  const tmp = tempBeside(dataDir, 'restore');
  let blobTmp: string | undefined;
  try {
    copyTree(join(from, 'data'), tmp, 'the backup');
    if (m.blobs === 'blobs') {
      if (blobsInside) {
        const inside = join(tmp, relative(dataDir, blobDir));
        if (existsSync(inside)) throw new BackupError(`${from} holds a blob store in both data/ and blobs/: restore one by hand`);
        copyTree(join(from, 'blobs'), inside, 'the backup');
      } else {
        mkdirSync(dirname(blobDir), { recursive: true, mode: PRIVATE_DIR_MODE });
        blobTmp = tempBeside(blobDir, 'restore');
        copyTree(join(from, 'blobs'), blobTmp, 'the backup');
      }
    }
    if (blobTmp) moveIntoPlace(blobTmp, blobDir, 'the blob directory');
    blobTmp = undefined;
    moveIntoPlace(tmp, dataDir, 'the data directory');
  } catch (e) {
    rmSync(tmp, { recursive: true, force: true });
    if (blobTmp) rmSync(blobTmp, { recursive: true, force: true });
    throw e;
  }
  const lines = [`Restored the backup of ${m.dataDir} taken ${m.createdAt} into ${dataDir}. `
    + 'Start Gantry on it (GANTRY_DATA_DIR): the start replays the usage journal and runs any newer migrations; the operator token and API keys are those of the backup.'];
  lines.push(...secretKeyNotes(m, config, dataDir));
  if (m.blobs === 'data' && config.blobs.kind === 'local' && !blobsInside) {
    lines.push(`File bytes are in ${join(dataDir, 'blobs')}, and GANTRY_BLOB_DIR is ${blobDir}: move them there before starting.`);
  }
  if (m.blobs === 's3') lines.push('File bytes were in S3 when the backup was taken: the bucket is not part of it.');
  return lines.join('\n');
}

function secretKeyNotes(m: Manifest, config: Config, dataDir: string): string[] {
  const file = join(dataDir, 'secret.key');
  if (config.secretKey && existsSync(file)) {
    const same = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64').equals(Buffer.from(config.secretKey, 'base64'));
    return same ? [] : ['GANTRY_SECRET_KEY is set and differs from the restored secret.key, which it overrides: registry passwords and image '
      + 'credentials sealed with the backup\'s key will not open. Unset GANTRY_SECRET_KEY, or set it to the backup\'s key.'];
  }
  if (m.secretKey === 'GANTRY_SECRET_KEY' && !config.secretKey) {
    return ['The backed-up server took its secret key from GANTRY_SECRET_KEY: set the same key before starting, or sealed credentials will not open.'];
  }
  return [];
}
