// Blobs as files under a directory (default `<data dir>/blobs`). A put writes a temporary
// file in `.tmp/` beside the blobs (same file system), flushes it to disk and renames it
// over the key's path, then syncs the directory: a reader sees the old bytes or the new,
// never a part, and a put that returned survives a power cut. Temporary files a day old are
// leftovers of a process that died mid-put (no put takes a day), removed at start.
import { createWriteStream } from 'node:fs';
import { mkdir, open, readdir, rename, rm, stat, type FileHandle } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { randomBytes } from 'node:crypto';
import { measured } from './measure.ts';
import { BlobNotFoundError, BlobRangeError, checkKey, type BlobStat, type BlobStore, type ByteRange, type PutResult } from './types.ts';

const TMP = '.tmp'; // not a valid key segment (keys never start with a dot), so never a blob

function isNotFound(err: unknown): boolean {
  return (err as NodeJS.ErrnoException).code === 'ENOENT';
}

export class LocalBlobStore implements BlobStore {
  readonly kind = 'local' as const;
  private readonly root: string;

  private constructor(root: string) {
    this.root = root;
  }

  /** A store rooted at `root` (created 0700); day-old temporary files of dead processes are removed. */
  static async open(root: string): Promise<LocalBlobStore> {
    const tmp = join(root, TMP);
    await mkdir(tmp, { recursive: true, mode: 0o700 });
    const dayAgo = Date.now() - 86_400_000;
    for (const name of await readdir(tmp)) {
      const st = await stat(join(tmp, name)).catch(() => undefined);
      if (st && st.mtimeMs < dayAgo) await rm(join(tmp, name), { force: true });
    }
    return new LocalBlobStore(root);
  }

  private path(key: string): string {
    return join(this.root, checkKey(key));
  }

  async put(key: string, body: AsyncIterable<Uint8Array>, opts: { signal?: AbortSignal } = {}): Promise<PutResult> {
    const target = this.path(key);
    const tmp = join(this.root, TMP, `${randomBytes(12).toString('hex')}.part`);
    const m = measured(body);
    try {
      // flush: fsync before close, so the rename below never publishes unwritten bytes
      await pipeline(Readable.from(m.chunks, { objectMode: false }), createWriteStream(tmp, { flags: 'wx', mode: 0o600, flush: true }), { signal: opts.signal });
      await mkdir(dirname(target), { recursive: true, mode: 0o700 });
      await rename(tmp, target);
    } catch (err) {
      await rm(tmp, { force: true });
      throw err;
    }
    await syncDir(dirname(target));
    return m.result();
  }

  async get(key: string, range?: ByteRange): Promise<Readable> {
    let fh: FileHandle;
    try {
      fh = await open(this.path(key), 'r');
    } catch (err) {
      if (isNotFound(err)) throw new BlobNotFoundError(key);
      throw err;
    }
    // The open handle keeps the bytes readable even if the key is deleted or replaced now.
    try {
      if (!range) return fh.createReadStream({ autoClose: true });
      const { size } = await fh.stat();
      if (range.start >= size) throw new BlobRangeError(key, size);
      return fh.createReadStream({ start: range.start, end: Math.min(range.end ?? size - 1, size - 1), autoClose: true });
    } catch (err) {
      await fh.close();
      throw err;
    }
  }

  async stat(key: string): Promise<BlobStat | undefined> {
    try {
      return { bytes: (await stat(this.path(key))).size };
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    await rm(this.path(key), { force: true });
  }

  async close(): Promise<void> {}
}

/** Make a rename in `dir` durable (POSIX: the directory entry is data of the directory). */
async function syncDir(dir: string): Promise<void> {
  if (process.platform === 'win32') return;
  const fh = await open(dir, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}
