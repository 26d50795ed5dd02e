// The SFTP subsystem (OpenSSH's `sftp`, and `scp`, which speaks SFTP since OpenSSH 9.0) served
// from the instance's container filesystem, with no SFTP server in the image: each operation
// is a short process exec'd in the container (ComputeDriver.exec) running the POSIX tools
// every image with a shell has (busybox's applets are enough): `stat -c`, `cat`, `tail -c`,
// `mkdir`, `rm`, `mv`, `chmod`, `readlink`. A file's bytes stream: a download is one stream
// answering the client's READs in order, the driver's file stream where it has one (docker:
// the engine's archive API, what docker cp reads) or a `tail -c +N` from an offset; an upload
// one `cat >>` whose stdin takes its WRITEs; neither is held in memory beyond the streams'
// buffers. Paths are resolved against the home directory ($HOME, else /) before they reach a
// tool, and reach it as an argument ("$1"), never as shell text.
// Not served: writes at an offset that is neither the file's end nor 0 of an untruncated file
// (OP_UNSUPPORTED: OpenSSH writes sequentially, resumes append), symlink creation, and setting
// owners or times (SETSTAT applies the mode only).
import { posix } from 'node:path';
import type { Readable } from 'node:stream';
import ssh2 from 'ssh2';
import type { Attributes, FileEntry, SFTPWrapper } from 'ssh2';
import type { ComputeDriver, ExecSession } from '../../drivers/types.ts';
import type { Logger } from '../../lib/logger.ts';

const { STATUS_CODE, OPEN_MODE } = ssh2.utils.sftp;
/** mode (raw hex), size, uid, gid, atime, mtime, name: one line per path */
const STAT_FORMAT = '%f %s %u %g %X %Y %n';
const SCRIPTS = {
  home: 'cd "$HOME" 2>/dev/null || cd /; pwd',
  stat: `stat -c '${STAT_FORMAT}' -- "$1"`,
  statFollow: `stat -L -c '${STAT_FORMAT}' -- "$1"`,
  // every entry but . and .., hidden ones included; a glob that matches nothing is left out
  list: `cd -- "$1" || exit 1; stat -c '${STAT_FORMAT}' -- * .[!.]* ..?* 2>/dev/null; exit 0`,
  read: 'if [ "$2" = 0 ]; then exec cat -- "$1"; fi; exec tail -c +"$(($2 + 1))" -- "$1"',
  prepareWrite: '[ -d "$1" ] && { echo "$1: Is a directory" >&2; exit 1; }; case "$2" in trunc) : > "$1";; creat) : >> "$1";; *) [ -e "$1" ] || { echo "$1: No such file or directory" >&2; exit 1; };; esac && stat -c %s -- "$1"',
  append: 'exec cat >> "$1"',
  overwrite: 'exec cat 1<> "$1"',
  mkdir: 'mkdir -- "$1"',
  rmdir: 'rmdir -- "$1"',
  remove: '[ -d "$1" ] && { echo "$1: Is a directory" >&2; exit 1; }; rm -- "$1"',
  rename: '[ -e "$2" ] && { echo "$2: File exists" >&2; exit 1; }; mv -- "$1" "$2"',
  chmod: 'chmod "$2" -- "$1"',
  readlink: 'readlink -- "$1"',
} as const;
/** what one READDIR answers at most */
const NAMES_PER_READDIR = 100;
/** the most an upload's bytes may wait for the engine before its WRITEs wait too */
const WRITE_BUFFER = 4 * 1024 * 1024;
/** the most a READ answers (OpenSSH asks 32-256 KiB) */
const MAX_READ = 256 * 1024;

class SftpError extends Error {
  readonly code: number;
  constructor(code: number, message: string) {
    super(message);
    this.code = code;
  }
}

/** The status a tool's complaint means. */
function failure(stderr: string): SftpError {
  const text = stderr.trim().split('\n').pop() ?? '';
  if (/no such file|not found|does not exist/i.test(text)) return new SftpError(STATUS_CODE.NO_SUCH_FILE, text);
  if (/permission denied|not permitted|read-only/i.test(text)) return new SftpError(STATUS_CODE.PERMISSION_DENIED, text);
  return new SftpError(STATUS_CODE.FAILURE, text || 'failed');
}

/** Where a download's bytes come from: the engine's archive of the file, or a `tail` from an offset. */
interface ReadSource {
  stdout: Readable;
  close(): Promise<void>;
}

interface ReadHandle {
  kind: 'read';
  path: string;
  /** the stream that is at `at` */
  proc?: ReadSource | undefined;
  at: number;
  eof: boolean;
  /** READs answered one after the other, in the order they came */
  queue: Promise<void>;
}

interface WriteHandle {
  kind: 'write';
  path: string;
  /** the file's size when opened (after a truncation): where an append starts */
  size: number;
  proc?: ExecSession | undefined;
  stderr: string;
  at: number;
  failed?: SftpError | undefined;
  queue: Promise<void>;
}

interface DirHandle {
  kind: 'dir';
  path: string;
  entries?: FileEntry[] | undefined;
}

type Handle = ReadHandle | WriteHandle | DirHandle;

/** Serves one SFTP channel until it closes; every process it started ends with it. */
export function serveSftp(sftp: SFTPWrapper, driver: ComputeDriver, instanceId: string, log: Logger): void {
  new SftpSession(sftp, driver, instanceId, log).start();
}

class SftpSession {
  private readonly sftp: SFTPWrapper;
  private readonly driver: ComputeDriver;
  private readonly id: string;
  private readonly log: Logger;
  private readonly handles = new Map<number, Handle>();
  private nextHandle = 1;
  private home: Promise<string> | undefined;

  constructor(sftp: SFTPWrapper, driver: ComputeDriver, id: string, log: Logger) {
    this.sftp = sftp;
    this.driver = driver;
    this.id = id;
    this.log = log;
  }

  start(): void {
    const s = this.sftp;
    const on = (event: string, fn: (req: number, ...args: never[]) => Promise<void>) => {
      s.on(event, (req: number, ...args: never[]) => {
        fn(req, ...args).catch((err: unknown) => this.fail(req, err));
      });
    };
    on('REALPATH', async (req, path: string) => {
      const p = await this.resolve(path);
      s.name(req, [{ filename: p, longname: p, attrs: {} as Attributes }]);
    });
    on('STAT', async (req, path: string) => s.attrs(req, (await this.stat(await this.resolve(path), true)).attrs));
    on('LSTAT', async (req, path: string) => s.attrs(req, (await this.stat(await this.resolve(path), false)).attrs));
    on('FSTAT', async (req, h: Buffer) => s.attrs(req, (await this.stat(this.handle(h).path, true)).attrs));
    on('OPEN', async (req, path: string, flags: number) => this.open(req, await this.resolve(path), flags));
    on('READ', async (req, h: Buffer, offset: number, len: number) => this.read(req, this.handleOf(h, 'read'), offset, len));
    on('WRITE', async (req, h: Buffer, offset: number, data: Buffer) => this.write(req, this.handleOf(h, 'write'), offset, data));
    on('CLOSE', async (req, h: Buffer) => this.closeHandle(req, h));
    on('OPENDIR', async (req, path: string) => {
      const dir = await this.resolve(path);
      const st = await this.stat(dir, true);
      if ((st.attrs.mode & 0o170000) !== 0o040000) throw new SftpError(STATUS_CODE.FAILURE, `${dir}: Not a directory`);
      s.handle(req, this.add({ kind: 'dir', path: dir }));
    });
    on('READDIR', async (req, h: Buffer) => this.readdir(req, this.handleOf(h, 'dir')));
    on('MKDIR', async (req, path: string) => this.tool(req, 'mkdir', [await this.resolve(path)]));
    on('RMDIR', async (req, path: string) => this.tool(req, 'rmdir', [await this.resolve(path)]));
    on('REMOVE', async (req, path: string) => this.tool(req, 'remove', [await this.resolve(path)]));
    on('RENAME', async (req, from: string, to: string) => this.tool(req, 'rename', [await this.resolve(from), await this.resolve(to)]));
    on('SETSTAT', async (req, path: string, attrs: Attributes) => this.setstat(req, await this.resolve(path), attrs));
    on('FSETSTAT', async (req, h: Buffer, attrs: Attributes) => this.setstat(req, this.handle(h).path, attrs));
    on('READLINK', async (req, path: string) => {
      const target = (await this.run('readlink', [await this.resolve(path)])).trim();
      s.name(req, [{ filename: target, longname: target, attrs: {} as Attributes }]);
    });
    on('SYMLINK', async (req) => s.status(req, STATUS_CODE.OP_UNSUPPORTED, 'symbolic links cannot be made over this SFTP'));
    // the client is done (EOF): exit status 0, then the channel closes. OpenSSH's ssh exits with
    // the channel's status, and scp fails on anything but 0 (255 when none came); ssh2's SFTP
    // object has no exit(), so the status goes through its protocol as its Channel's does.
    s.on('end', () => {
      const chan = s as unknown as { _protocol?: { exitStatus(id: number, status: number): void }; outgoing?: { id: number; state: string } };
      if (chan.outgoing?.state === 'open') chan._protocol?.exitStatus(chan.outgoing.id, 0);
      s.end();
    });
    s.on('close', () => this.closeAll());
    s.on('error', (err: Error) => this.log.info({ err, instanceId: this.id }, 'an SFTP channel failed'));
  }

  private fail(req: number, err: unknown): void {
    if (err instanceof SftpError) return void this.sftp.status(req, err.code, err.message);
    this.log.info({ err, instanceId: this.id }, 'an SFTP operation failed');
    this.sftp.status(req, STATUS_CODE.FAILURE, (err as Error).message ?? 'failed');
  }

  /** An absolute, normalized path: relative ones from the home directory. */
  private async resolve(path: string): Promise<string> {
    if (path.includes('\0')) throw new SftpError(STATUS_CODE.BAD_MESSAGE, 'a path may not hold NUL');
    if (path.startsWith('/')) return posix.normalize(path);
    this.home ??= this.run('home', []).then((out) => out.trim() || '/');
    return posix.normalize(posix.join(await this.home, path || '.'));
  }

  private add(h: Handle): Buffer {
    const n = this.nextHandle++;
    this.handles.set(n, h);
    const b = Buffer.alloc(4);
    b.writeUInt32BE(n);
    return b;
  }

  private handle(b: Buffer): Handle {
    const h = b.length === 4 ? this.handles.get(b.readUInt32BE(0)) : undefined;
    if (!h) throw new SftpError(STATUS_CODE.FAILURE, 'no such handle');
    return h;
  }

  private handleOf<K extends Handle['kind']>(b: Buffer, kind: K): Extract<Handle, { kind: K }> {
    const h = this.handle(b);
    if (h.kind !== kind) throw new SftpError(STATUS_CODE.FAILURE, `the handle is not open for ${kind}`);
    return h as Extract<Handle, { kind: K }>;
  }

  /** A tool run to its end: its stdout, or the status its stderr means. */
  private async run(script: keyof typeof SCRIPTS, args: string[]): Promise<string> {
    const proc = await this.driver.exec!(this.id, { command: ['/bin/sh', '-c', SCRIPTS[script], 'sh', ...args] });
    proc.stdin.end();
    const [out, err] = await Promise.all([text(proc.stdout), text(proc.stderr)]);
    const code = await proc.exited();
    if (code !== 0) throw failure(err);
    return out;
  }

  private async tool(req: number, script: keyof typeof SCRIPTS, args: string[]): Promise<void> {
    await this.run(script, args);
    this.sftp.status(req, STATUS_CODE.OK);
  }

  private async stat(path: string, follow: boolean): Promise<FileEntry> {
    const [entry] = parseStats(await this.run(follow ? 'statFollow' : 'stat', [path]));
    if (!entry) throw new SftpError(STATUS_CODE.NO_SUCH_FILE, `${path}: No such file or directory`);
    return entry;
  }

  private async setstat(req: number, path: string, attrs: Attributes): Promise<void> {
    if (typeof attrs.mode === 'number') await this.run('chmod', [path, (attrs.mode & 0o7777).toString(8)]);
    this.sftp.status(req, STATUS_CODE.OK); // owners and times are left as they are (see above)
  }

  private async open(req: number, path: string, flags: number): Promise<void> {
    if (!(flags & OPEN_MODE.WRITE)) {
      const st = await this.stat(path, true);
      if ((st.attrs.mode & 0o170000) === 0o040000) throw new SftpError(STATUS_CODE.FAILURE, `${path}: Is a directory`);
      this.sftp.handle(req, this.add({ kind: 'read', path, at: 0, eof: false, queue: Promise.resolve() }));
      return;
    }
    const how = flags & OPEN_MODE.TRUNC ? 'trunc' : flags & OPEN_MODE.CREAT ? 'creat' : 'existing';
    const size = Number((await this.run('prepareWrite', [path, how])).trim()) || 0;
    this.sftp.handle(req, this.add({ kind: 'write', path, size, at: -1, stderr: '', queue: Promise.resolve() }));
  }

  /** READs in order from one stream; a READ elsewhere than where the stream is starts another there. */
  private read(req: number, h: ReadHandle, offset: number, len: number): Promise<void> {
    h.queue = h.queue.then(async () => {
      try {
        if (offset !== h.at || !h.proc) await this.seek(h, offset);
        const chunk = h.eof ? null : await take(h.proc!.stdout, Math.min(len, MAX_READ));
        if (!chunk?.length) {
          h.eof = true;
          return this.sftp.status(req, STATUS_CODE.EOF);
        }
        h.at += chunk.length;
        this.sftp.data(req, chunk);
      } catch (err) {
        this.fail(req, err);
      }
    });
    return h.queue;
  }

  /** From the start: the driver's file stream when it has one (docker: the archive API, docker cp's speed); else a `cat`/`tail` there. */
  private async seek(h: ReadHandle, offset: number): Promise<void> {
    void h.proc?.close().catch(() => {});
    h.proc = undefined;
    const whole = offset === 0 && this.driver.readFile ? await this.driver.readFile(this.id, h.path) : undefined;
    if (whole) {
      h.proc = { stdout: whole, close: async () => void whole.destroy() };
    } else {
      const proc = await this.driver.exec!(this.id, { command: ['/bin/sh', '-c', SCRIPTS.read, 'sh', h.path, String(offset)] });
      proc.stdin.end();
      proc.stderr.resume();
      h.proc = proc;
    }
    h.at = offset;
    h.eof = false;
  }

  /** WRITEs in order into one `cat`: at the file's end (append), or from 0 into a file not truncated. */
  private write(req: number, h: WriteHandle, offset: number, data: Buffer): Promise<void> {
    h.queue = h.queue.then(async () => {
      try {
        if (h.failed) throw h.failed;
        if (!h.proc) await this.startWriter(h, offset);
        if (offset !== h.at) throw new SftpError(STATUS_CODE.OP_UNSUPPORTED, `writes go one after the other here (expected offset ${h.at}, got ${offset})`);
        h.at += data.length;
        // answered once taken, not once on disk (a failure after is the CLOSE's answer): the
        // client keeps its requests in flight; past WRITE_BUFFER waiting, it waits for the engine
        const stdin = h.proc!.stdin;
        stdin.write(data);
        if (stdin.writableLength > WRITE_BUFFER) await new Promise((r) => stdin.once('drain', r));
        this.sftp.status(req, STATUS_CODE.OK);
      } catch (err) {
        this.fail(req, err);
      }
    });
    return h.queue;
  }

  private async startWriter(h: WriteHandle, offset: number): Promise<void> {
    const script = offset === h.size ? 'append' : offset === 0 ? 'overwrite' : undefined;
    if (!script) throw new SftpError(STATUS_CODE.OP_UNSUPPORTED, `a write at offset ${offset} (the file has ${h.size} bytes) is not supported here`);
    h.proc = await this.driver.exec!(this.id, { command: ['/bin/sh', '-c', SCRIPTS[script], 'sh', h.path] });
    h.proc.stderr.on('data', (c: Buffer) => (h.stderr += c.toString()));
    h.proc.stdout.resume();
    h.at = offset;
  }

  private async closeHandle(req: number, b: Buffer): Promise<void> {
    const h = this.handle(b);
    this.handles.delete(b.readUInt32BE(0));
    if (h.kind === 'write') {
      await h.queue;
      if (h.proc) {
        h.proc.stdin.end();
        const code = await h.proc.exited();
        if (code !== 0) throw failure(h.stderr || `writing ${h.path} failed`);
      }
    } else if (h.kind === 'read') {
      await h.queue;
      void h.proc?.close().catch(() => {});
    }
    this.sftp.status(req, STATUS_CODE.OK);
  }

  private async readdir(req: number, h: DirHandle): Promise<void> {
    h.entries ??= parseStats(await this.run('list', [h.path]));
    if (!h.entries.length) return this.sftp.status(req, STATUS_CODE.EOF);
    this.sftp.name(req, h.entries.splice(0, NAMES_PER_READDIR));
  }

  private closeAll(): void {
    for (const h of this.handles.values()) if (h.kind !== 'dir') void h.proc?.close().catch(() => {});
    this.handles.clear();
  }
}

/** `stat -c STAT_FORMAT` lines as SFTP names (a name may hold spaces: it is the rest of the line). */
export function parseStats(out: string): FileEntry[] {
  const entries: FileEntry[] = [];
  for (const line of out.split('\n')) {
    const m = /^([0-9a-f]+) (\d+) (\d+) (\d+) (\d+) (\d+) (.+)$/.exec(line);
    if (!m) continue;
    const attrs: Attributes = {
      mode: Number.parseInt(m[1]!, 16), size: Number(m[2]), uid: Number(m[3]), gid: Number(m[4]), atime: Number(m[5]), mtime: Number(m[6]),
    };
    const filename = posix.basename(m[7]!);
    entries.push({ filename, longname: longName(filename, attrs), attrs });
  }
  return entries;
}

/** the `ls -l` letter of each file type (S_IFMT bits) */
const FILE_TYPES = new Map([[0o040000, 'd'], [0o120000, 'l'], [0o020000, 'c'], [0o060000, 'b'], [0o010000, 'p'], [0o140000, 's']]);

/** An `ls -l` line, as SFTP v3 clients print for `ls -l`. */
export function longName(name: string, a: Attributes): string {
  const type = FILE_TYPES.get(a.mode & 0o170000) ?? '-';
  const bits = 'rwxrwxrwx'.split('').map((c, i) => (a.mode & (0o400 >> i) ? c : '-')).join('');
  const date = new Date(a.mtime * 1000).toISOString().slice(0, 16).replace('T', ' ');
  return `${type}${bits}    1 ${String(a.uid).padEnd(8)} ${String(a.gid).padEnd(8)} ${String(a.size).padStart(8)} ${date} ${name}`;
}

async function text(stream: Readable): Promise<string> {
  let out = '';
  for await (const chunk of stream) out += (chunk as Buffer).toString();
  return out;
}

/** Up to `n` bytes from the stream as soon as it has them (fewer only at its end; null when it ended). */
function take(stream: Readable, n: number): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const attempt = () => {
      const chunk = stream.read(n) as Buffer | null;
      if (chunk !== null) return done(chunk);
      if (stream.readableEnded || stream.destroyed) return done(stream.read() as Buffer | null);
    };
    const done = (chunk: Buffer | null) => {
      stream.off('readable', attempt);
      stream.off('end', onEnd);
      stream.off('error', reject);
      resolve(chunk);
    };
    const onEnd = () => done(stream.read() as Buffer | null);
    stream.on('readable', attempt);
    stream.once('end', onEnd);
    stream.once('error', reject);
    attempt();
  });
}
