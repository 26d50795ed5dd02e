// Processes in a container: the web terminal (ComputeDriver.terminal: a shell exec'd with a
// TTY) and the SSH endpoint's shells, commands and SFTP helpers (ComputeDriver.exec, with or
// without a TTY), their stream hijacked from the engine. The Engine API, the same on dockerd
// and on Podman's Docker-compatible socket:
//   POST /containers/{name}/exec   AttachStdin/Stdout/Stderr, Tty, Cmd: bash if the image has
//                                  it, else sh (busybox images have only sh), or the command
//   POST /exec/{id}/start          `Connection: Upgrade, Upgrade: tcp`: the engine answers 101
//                                  and the connection becomes the process's bytes: raw with a
//                                  TTY; without one, stdout and stderr in frames of an 8-byte
//                                  header (stream 1|2, 0, 0, 0, size uint32 BE) and stdin's EOF
//                                  a half-close of the connection
//   POST /exec/{id}/resize?h=&w=   the TTY's size
//   GET /exec/{id}/json            ExitCode, once Running is false
//
// The upgrade goes through undici's `upgrade()` (the project's HTTP client, as engine.ts):
// it writes the request with its JSON body, lets llhttp read the engine's answer and hands
// over the socket once the engine says 101, on a unix socket or tcp:// alike, with no HTTP
// written or parsed by hand. Its own Agent: an upgraded socket leaves its pool, and the
// driver's Agent keeps its 16 connections for the calls that answer in a few ms.
//
// Neither engine ends an exec when its connection closes (measured: dockerd 20.10 and
// Podman 4.3 keep the shell running, without a client, for ever), and the API has no call
// that signals an exec. So every exec carries `GANTRY_TERMINAL=<random marker>` in its
// environment, which every process started from the shell inherits, and closing a terminal
// runs a second, detached exec that sends SIGHUP to every process of the container carrying
// that marker (a shell exits on it, as when a terminal hangs up), then SIGKILL to what is
// left after 2 s. The images must have /bin/sh, tr and grep (every image with a shell does;
// busybox's applets do).
import { randomBytes } from 'node:crypto';
import { type Duplex, PassThrough, Readable, type Writable } from 'node:stream';
import { Agent, type Dispatcher } from 'undici';
import { type ExecOptions, type ExecSession, type TerminalSession, type TerminalSize, TerminalUnavailable } from '../types.ts';
import { type EngineClient, isNotFound, isStateConflict } from './engine.ts';

const API = '/v1.41';
/** the environment variable that marks a terminal's processes */
export const TERMINAL_MARKER_ENV = 'GANTRY_TERMINAL';
/** bash when the image has it, else sh */
const SHELL = 'if [ -x /bin/bash ]; then exec /bin/bash; fi; exec /bin/sh';
/** $1: the marker. HUP to every process carrying it, KILL to those still there 2 s later. */
const HANG_UP = [
  'm="$1"',
  'marked() { for d in /proc/[0-9]*; do tr "\\000" "\\n" < "$d/environ" 2>/dev/null | grep -qxF "$m" && basename "$d"; done; }',
  'p=$(marked); [ -z "$p" ] && exit 0',
  'kill -HUP $p 2>/dev/null',
  'i=0; while [ $i -lt 20 ]; do p=$(marked); [ -z "$p" ] && exit 0; sleep 0.1; i=$((i+1)); done',
  'kill -KILL $p 2>/dev/null',
].join('\n');
/** the longest the engine may take to start an exec */
const START_TIMEOUT_MS = 10_000;

/**
 * On a TTY, the command runs once the TTY has its size: the engine's resize comes only after
 * the start (API 1.41 has no size at creation), and a command that reads it at once (`stty
 * size`, a full-screen program) would see 0x0. `stty` is busybox's or coreutils'; an image
 * without it gets the size from the resize, a moment later.
 */
function sized(command: string[], tty: TerminalSize | undefined): string[] {
  if (!tty) return command;
  return ['/bin/sh', '-c', `stty rows ${Math.trunc(tty.rows)} cols ${Math.trunc(tty.cols)} 2>/dev/null; exec "$@"`, 'sh', ...command];
}

/** The processes opened through one engine; closed with the driver. */
export class ContainerExecs {
  private readonly engine: EngineClient;
  private readonly agent: Agent;
  private readonly live = new Set<ExecProcess>();

  constructor(engine: EngineClient) {
    this.engine = engine;
    const { socketPath } = engine.target;
    this.agent = new Agent(socketPath ? { connect: { socketPath } } : {});
  }

  /** A shell in the running container `name`, on a TTY of `size` (the web terminal). */
  async open(name: string, size: TerminalSize): Promise<TerminalSession> {
    return this.exec(name, { tty: size });
  }

  /** A process in the running container `name`: the interactive shell unless a command is given. */
  async exec(name: string, o: ExecOptions): Promise<ExecProcess> {
    const marker = randomBytes(16).toString('hex');
    const tty = o.tty !== undefined;
    let created: { Id: string } | undefined;
    try {
      created = await this.engine.json<{ Id: string }>('POST', `/containers/${name}/exec`, {
        body: {
          AttachStdin: true, AttachStdout: true, AttachStderr: true, Tty: tty, Cmd: sized(o.command ?? ['/bin/sh', '-c', SHELL], o.tty),
          Env: [`${TERMINAL_MARKER_ENV}=${marker}`, ...(tty ? ['TERM=xterm-256color'] : []), ...(o.env ?? [])],
        },
      });
    } catch (err) {
      // no such container, or not running (Docker 409, Podman 500 "container state improper")
      if (isNotFound(err) || isStateConflict(err)) throw new TerminalUnavailable(`the container ${name} does not run`);
      throw err;
    }
    if (!created?.Id) throw new Error(`the engine made no exec in ${name}`);
    // an Agent dispatches by origin, and an upgrade may carry a body: undici takes both, its types name neither
    const options = {
      origin: this.engine.target.origin, path: `${API}/exec/${created.Id}/start`, method: 'POST', protocol: 'tcp',
      headers: { 'content-type': 'application/json' }, body: JSON.stringify({ Detach: false, Tty: tty }),
      signal: AbortSignal.timeout(START_TIMEOUT_MS),
    } as Dispatcher.UpgradeOptions;
    const { socket } = await this.agent.upgrade(options);
    const p = new ExecProcess(this.engine, name, created.Id, marker, socket, tty, () => this.live.delete(p));
    this.live.add(p);
    if (o.tty) await p.resize(o.tty).catch(() => {}); // a shell that ended at once: its stream says so
    return p;
  }

  /** Ends every process still open (what they started included), then drops the connections. */
  async close(): Promise<void> {
    await Promise.all([...this.live].map((t) => t.close()));
    await this.agent.destroy(null).catch(() => {});
  }
}

/** How long the engine may take, after a process's output ended, to say it has exited (ms). */
const EXIT_WAIT_MS = 5_000;

class ExecProcess implements TerminalSession, ExecSession {
  /** the hijacked connection: keystrokes in, the TTY's bytes (or the frames) out */
  readonly stream: Duplex;
  readonly stdin: Writable;
  readonly stdout: Readable;
  readonly stderr: Readable;
  private readonly engine: EngineClient;
  private readonly container: string;
  private readonly execId: string;
  private readonly marker: string;
  private readonly onClosed: () => void;
  private readonly ended: Promise<void>;
  private exitP: Promise<number | null> | undefined;
  private closing: Promise<void> | undefined;

  constructor(engine: EngineClient, container: string, execId: string, marker: string, socket: Duplex, tty: boolean, onClosed: () => void) {
    this.engine = engine;
    this.container = container;
    this.execId = execId;
    this.marker = marker;
    this.stream = socket;
    this.stdin = socket;
    this.onClosed = onClosed;
    if (tty) {
      this.stdout = socket;
      this.stderr = Readable.from([]);
    } else {
      const out = new PassThrough();
      const err = new PassThrough();
      demultiplex(socket, out, err);
      this.stdout = out;
      this.stderr = err;
    }
    this.ended = new Promise((resolve) => {
      socket.once('close', () => resolve());
    });
    // the process ended by itself (exit), or the engine went: what it started goes with it,
    // unless it is known to have exited (a command: nothing of it is left)
    socket.once('close', () => void this.afterEnd().catch(() => {}));
  }

  async resize(size: TerminalSize): Promise<void> {
    await this.engine.json('POST', `/exec/${this.execId}/resize`, { query: { h: size.rows, w: size.cols } });
  }

  exited(): Promise<number | null> {
    this.exitP ??= this.ended.then(() => this.exitCode());
    return this.exitP;
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      this.stream.destroy();
      try {
        await this.hangUp();
      } finally {
        this.onClosed();
      }
    })();
    return this.closing;
  }

  private async afterEnd(): Promise<void> {
    const code = await this.exited();
    if (code !== null && !this.closing) {
      this.closing = Promise.resolve();
      this.onClosed();
      return;
    }
    await this.close();
  }

  /** The engine's ExitCode once it says the process is no longer running; null if it never does. */
  private async exitCode(): Promise<number | null> {
    const until = Date.now() + EXIT_WAIT_MS;
    for (let wait = 5; Date.now() < until; wait = Math.min(wait * 2, 200)) {
      const info = await this.engine.json<{ Running?: boolean; ExitCode?: number | null }>('GET', `/exec/${this.execId}/json`).catch(() => undefined);
      if (!info) return null;
      if (!info.Running && typeof info.ExitCode === 'number') return info.ExitCode;
      await new Promise((r) => setTimeout(r, wait));
    }
    return null;
  }

  /** HUP, then KILL, to every process of this one (a second exec: the API cannot signal one). */
  private async hangUp(): Promise<void> {
    try {
      const killer = await this.engine.json<{ Id: string }>('POST', `/containers/${this.container}/exec`, {
        body: { AttachStdin: false, AttachStdout: false, AttachStderr: false, Tty: false, Cmd: ['/bin/sh', '-c', HANG_UP, 'sh', `${TERMINAL_MARKER_ENV}=${this.marker}`] },
      });
      if (killer?.Id) await this.engine.json('POST', `/exec/${killer.Id}/start`, { body: { Detach: true, Tty: false } });
    } catch (err) {
      // the container stopped or went: its processes went with it
      if (!isNotFound(err) && !isStateConflict(err)) throw err;
    }
  }
}

/**
 * The frames of a non-TTY exec into stdout and stderr, as they come; the connection is paused
 * while either does not take more (backpressure to the engine).
 */
function demultiplex(socket: Duplex, out: PassThrough, err: PassThrough): void {
  let buf: Buffer = Buffer.alloc(0);
  let blocked = 0;
  const unblock = () => {
    if (--blocked === 0) socket.resume();
  };
  socket.on('data', (chunk: Buffer) => {
    buf = buf.length ? Buffer.concat([buf, chunk]) : chunk;
    let off = 0;
    while (buf.length - off >= 8) {
      const size = buf.readUInt32BE(off + 4);
      if (buf.length - off - 8 < size) break;
      const target = buf[off] === 2 ? err : out;
      if (!target.write(buf.subarray(off + 8, off + 8 + size))) {
        blocked++;
        socket.pause();
        target.once('drain', unblock);
      }
      off += 8 + size;
    }
    buf = buf.subarray(off);
  });
  const finish = () => {
    out.end();
    err.end();
  };
  socket.once('end', finish);
  socket.once('close', finish);
  socket.on('error', () => finish());
}
