// The web terminal on a container (ComputeDriver.terminal): a shell exec'd with a TTY, its
// stream hijacked from the engine. The Engine API, the same on dockerd and on Podman's
// Docker-compatible socket:
//   POST /containers/{name}/exec   AttachStdin/Stdout/Stderr, Tty, Cmd: bash if the image has
//                                  it, else sh (busybox images have only sh)
//   POST /exec/{id}/start          `Connection: Upgrade, Upgrade: tcp`: the engine answers 101
//                                  and the connection becomes the terminal's raw bytes (with a
//                                  TTY there is no 8-byte multiplexing header)
//   POST /exec/{id}/resize?h=&w=   the TTY's size
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
import type { Duplex } from 'node:stream';
import { Agent, type Dispatcher } from 'undici';
import { type TerminalSession, type TerminalSize, TerminalUnavailable } from '../types.ts';
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

/** The terminals opened through one engine; closed with the driver. */
export class ContainerTerminals {
  private readonly engine: EngineClient;
  private readonly agent: Agent;
  private readonly live = new Set<ExecTerminal>();

  constructor(engine: EngineClient) {
    this.engine = engine;
    const { socketPath } = engine.target;
    this.agent = new Agent(socketPath ? { connect: { socketPath } } : {});
  }

  /** A shell in the running container `name`, on a TTY of `size`. */
  async open(name: string, size: TerminalSize): Promise<TerminalSession> {
    const marker = randomBytes(16).toString('hex');
    let created: { Id: string } | undefined;
    try {
      created = await this.engine.json<{ Id: string }>('POST', `/containers/${name}/exec`, {
        body: {
          AttachStdin: true, AttachStdout: true, AttachStderr: true, Tty: true, Cmd: ['/bin/sh', '-c', SHELL],
          Env: [`${TERMINAL_MARKER_ENV}=${marker}`, 'TERM=xterm-256color'],
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
      headers: { 'content-type': 'application/json' }, body: JSON.stringify({ Detach: false, Tty: true }),
      signal: AbortSignal.timeout(START_TIMEOUT_MS),
    } as Dispatcher.UpgradeOptions;
    const { socket } = await this.agent.upgrade(options);
    const t = new ExecTerminal(this.engine, name, created.Id, marker, socket, () => this.live.delete(t));
    this.live.add(t);
    await t.resize(size).catch(() => {}); // a shell that ended at once: its stream says so
    return t;
  }

  /** Ends every terminal still open (their shells included), then drops the connections. */
  async close(): Promise<void> {
    await Promise.all([...this.live].map((t) => t.close()));
    await this.agent.destroy(null).catch(() => {});
  }
}

class ExecTerminal implements TerminalSession {
  readonly stream: Duplex;
  private readonly engine: EngineClient;
  private readonly container: string;
  private readonly execId: string;
  private readonly marker: string;
  private readonly onClosed: () => void;
  private closing: Promise<void> | undefined;

  constructor(engine: EngineClient, container: string, execId: string, marker: string, socket: Duplex, onClosed: () => void) {
    this.engine = engine;
    this.container = container;
    this.execId = execId;
    this.marker = marker;
    this.stream = socket;
    this.onClosed = onClosed;
    // the shell ended by itself (exit), or the engine went: what it started goes with it
    socket.once('close', () => void this.close().catch(() => {}));
  }

  async resize(size: TerminalSize): Promise<void> {
    await this.engine.json('POST', `/exec/${this.execId}/resize`, { query: { h: size.rows, w: size.cols } });
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

  /** HUP, then KILL, to every process of this terminal (a second exec: the API cannot signal one). */
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
