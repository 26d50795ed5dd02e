// An append-only journal of lines in segment files, next to the embedded store. Lines are
// written with one write(2) per append() before the caller goes on, so it survives the process being
// killed (kill -9, OOM) the moment append() returns; with `fsync` the caller can also wait
// for the disk (sync(), one fdatasync shared by every line appended before it).
// Lines are "done" once their content is in the database; a segment whose lines are all
// done is deleted. Whatever is left after a crash is read back by open() and replayed.
import { closeSync, fdatasync, fdatasyncSync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';

export interface JournalOptions {
  /** Wait for the disk, not only the kernel, in sync(). */
  fsync: boolean;
  /** Start a new segment past this size, so finished ones can be deleted. */
  segmentBytes?: number;
}

export interface RecoveredLine {
  segment: number;
  line: string;
}

interface Segment {
  open: boolean;
  pending: number; // lines appended and not yet done
  keep: boolean; // a line failed to reach the database: leave the file for the next start
}

const NAME = /^usage-(\d{12})\.jsonl$/;
const fileOf = (n: number) => `usage-${String(n).padStart(12, '0')}.jsonl`;

export class Journal {
  private readonly dir: string;
  private readonly opts: Required<JournalOptions>;
  private readonly segments = new Map<number, Segment>();
  private current: number;
  private fd: number;
  private bytes = 0;
  private syncWaiters: Array<{ resolve: () => void; reject: (e: unknown) => void }> = [];
  private syncing = false;
  private retired: number[] = []; // fds of rotated segments with an fdatasync still in flight

  private constructor(dir: string, opts: JournalOptions, next: number) {
    this.dir = dir;
    this.opts = { segmentBytes: 8 * 1024 * 1024, ...opts };
    this.current = next;
    this.fd = this.openSegment(next);
  }

  /** Open the journal in `dir`; lines left by an earlier process come back to be replayed. */
  static open(dir: string, opts: JournalOptions): { journal: Journal; recovered: RecoveredLine[] } {
    mkdirSync(dir, { recursive: true, mode: 0o700 }); // usage of every tenant: the owner's alone
    const found = readdirSync(dir).map((f) => NAME.exec(f)).filter((m) => m !== null).map((m) => Number(m[1])).sort((a, b) => a - b);
    const recovered: RecoveredLine[] = [];
    const counts = new Map<number, number>();
    for (const n of found) {
      const lines = readFileSync(join(dir, fileOf(n)), 'utf8').split('\n');
      // A line is complete only with its newline: a torn tail (power loss mid-write without
      // fsync) was never acknowledged to anyone, so it is dropped.
      lines.pop();
      for (const line of lines) if (line) recovered.push({ segment: n, line });
      counts.set(n, lines.filter(Boolean).length);
    }
    const journal = new Journal(dir, opts, (found.at(-1) ?? 0) + 1);
    for (const [n, pending] of counts) journal.segments.set(n, { open: false, pending, keep: false });
    for (const n of found) journal.maybeDelete(n);
    return { journal, recovered };
  }

  /** Append lines (no newline inside) with one write; they are in the kernel when this returns. Returns their segment. */
  append(lines: string[]): number {
    const buf = Buffer.from(`${lines.join('\n')}\n`);
    let off = 0;
    while (off < buf.length) off += writeSync(this.fd, buf, off);
    this.bytes += buf.length;
    const n = this.current;
    this.segments.get(n)!.pending += lines.length;
    if (this.bytes >= this.opts.segmentBytes) this.rotate();
    return n;
  }

  /** Resolves when every line appended so far is on disk (a no-op without `fsync`). */
  sync(): Promise<void> {
    if (!this.opts.fsync) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.syncWaiters.push({ resolve, reject });
      if (!this.syncing) this.runSync();
    });
  }

  private runSync(): void {
    this.syncing = true;
    const waiters = this.syncWaiters.splice(0);
    fdatasync(this.fd, (err) => {
      for (const w of waiters) (err ? w.reject(err) : w.resolve());
      if (this.syncWaiters.length) return this.runSync();
      this.syncing = false;
      for (const fd of this.retired.splice(0)) closeSync(fd);
    });
  }

  /** One line of `segment` is in the database now. */
  done(segment: number): void {
    const s = this.segments.get(segment);
    if (!s) return;
    s.pending--;
    this.maybeDelete(segment);
  }

  /** A line of `segment` could not be stored: keep the file so the next start retries it. */
  keep(segment: number): void {
    const s = this.segments.get(segment);
    if (s) s.keep = true;
  }

  /** Lines appended and not yet done, over all segments. */
  get pending(): number {
    let n = 0;
    for (const s of this.segments.values()) n += s.pending;
    return n;
  }

  close(): void {
    if (this.opts.fsync) fdatasyncSync(this.fd);
    closeSync(this.fd);
    const s = this.segments.get(this.current)!;
    s.open = false;
    this.maybeDelete(this.current);
  }

  private openSegment(n: number): number {
    const fd = openSync(join(this.dir, fileOf(n)), 'a', 0o600);
    if (this.opts.fsync) {
      // the new file's name must be on disk too, or a crash could lose the whole segment
      const dirFd = openSync(this.dir, 'r');
      try { fsyncSync(dirFd); } finally { closeSync(dirFd); }
    }
    this.segments.set(n, { open: true, pending: 0, keep: false });
    return fd;
  }

  private rotate(): void {
    if (this.opts.fsync) fdatasyncSync(this.fd); // covers every waiter of the old segment
    if (this.syncing) this.retired.push(this.fd); // an fdatasync on it is still running
    else closeSync(this.fd);
    const old = this.current;
    this.segments.get(old)!.open = false;
    this.current = old + 1;
    this.bytes = 0;
    this.fd = this.openSegment(this.current);
    this.maybeDelete(old);
  }

  private maybeDelete(n: number): void {
    const s = this.segments.get(n);
    if (!s || s.open || s.pending > 0 || s.keep) return;
    this.segments.delete(n);
    try { unlinkSync(join(this.dir, fileOf(n))); } catch { /* already gone */ }
  }
}
