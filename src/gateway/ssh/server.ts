// The SSH endpoint (issue 42, DESIGN.md "Access"): a data plane like the serverless router, an
// SSH server (`ssh2`) in front of the instances' containers. `ssh -p <port> <instanceId>@<host>`
// authenticates with a member's registered key (access.ts), and each channel reaches the
// container through the driver: a shell or a command is an engine exec (ComputeDriver.exec),
// SFTP (and so OpenSSH's scp) is served from the container's filesystem by small exec'd tools
// (sftp.ts), `ssh -L` is a TCP connection to the container on its own network
// (ComputeDriver.connect). Agent forwarding, X11 and `-R` are refused (the request answered
// false; the session goes on). A connection is a live session (domain/live-sessions): capped
// per instance and per team, and ended once its key is removed, its member demoted or
// disabled, or its team suspended.
import type { AddressInfo } from 'node:net';
import type ssh2 from 'ssh2';
import type { Connection, PublicKeyAuthContext, ServerChannel, Session } from 'ssh2';
import type { SshConfig } from '../../config.ts';
import type { AuthThrottle } from '../../domain/auth-throttle.ts';
import type { Ctx } from '../../domain/context.ts';
import type { LiveSession, LiveSessions } from '../../domain/live-sessions/live-sessions.ts';
import { can, type Principal } from '../../domain/roles.ts';
import type { ComputeDriver, ExecSession, TerminalSize } from '../../drivers/types.ts';
import { AppError } from '../../lib/errors.ts';
import type { Logger } from '../../lib/logger.ts';
import type { SecretBox } from '../../lib/secret-box.ts';
import type { InstanceRow } from '../../store/compute.ts';
import { NO_SSH, type SshComponentView } from '../../domain/compute/instance-view.ts';
import { type Authorized, authorize, hasSsh, mayOperate, SSH_CAPABILITY, type SshCaps, sshCommand, sshSessionSpec, unavailable } from './access.ts';
import type { HostKey } from './host-key.ts';

/**
 * What listening needs, loaded by listen() only: ssh2 (~36 ms and ~19 MB at a start that has
 * SSH off, the default) and the modules built on it.
 */
interface SshModules {
  ssh2: typeof ssh2;
  keys: typeof import('./host-key.ts');
  sftp: typeof import('./sftp.ts');
}

async function loadModules(): Promise<SshModules> {
  const [lib, keys, sftp] = await Promise.all([import('ssh2'), import('./host-key.ts'), import('./sftp.ts')]);
  return { ssh2: lib.default, keys, sftp };
}

/** publickey attempts one connection may make (OpenSSH's MaxAuthTries) */
const MAX_AUTH_TRIES = 6;
/** a client that does not answer 3 keepalives 30 s apart is gone */
const KEEPALIVE_MS = 30_000;
/**
 * The ciphers offered: AES-GCM and AES-CTR, which Node runs in OpenSSL (AES-NI). Not
 * chacha20-poly1305: OpenSSH clients prefer it, and without ssh2's optional native addon
 * (an install script this project does not run) its Poly1305 is JavaScript, measured at a
 * fraction of AES-GCM's speed (bench/ssh.ts: scp 35 MB/s with it).
 */
const CIPHERS: ssh2.CipherAlgorithm[] = ['aes128-gcm@openssh.com', 'aes256-gcm@openssh.com', 'aes128-ctr', 'aes192-ctr', 'aes256-ctr'];
/** destinations of `ssh -L` that mean the instance itself: its container is dialled, never anything else */
const SELF_HOSTS = new Set(['localhost', '127.0.0.1', '::1', '0.0.0.0', '']);

export interface SshGatewayDeps {
  ctx: Ctx;
  driver: ComputeDriver;
  secrets: SecretBox;
  sessions: LiveSessions;
  throttle: AuthThrottle;
  config: SshConfig;
  log: Logger;
}

/** One client connection: who it is once authenticated, what it has open. */
/** how long an ended connection waits for the client to close its channels */
const CLOSE_GRACE_MS = 2_000;

interface Client {
  conn: Connection;
  ip: string;
  tries: number;
  authorized?: Authorized | undefined;
  live?: LiveSession | undefined;
  /** why no channel may open ('' when they may): the instance does not run, too many sessions, access withdrawn */
  refusal: string;
  channels: Set<ServerChannel>;
  procs: Set<ExecSession>;
}

export class SshGateway {
  private readonly d: SshGatewayDeps;
  /** channels Gantry ended with a reason and status 255: their process's own end adds nothing */
  private readonly endedHere = new WeakSet<ServerChannel>();
  private server: ssh2.Server | undefined;
  private m: SshModules | undefined;
  private key: HostKey | undefined;
  private bound: { host: string; port: number } | undefined;
  private readonly clients = new Set<Client>();

  constructor(d: SshGatewayDeps) {
    this.d = d;
  }

  /** Whether SSH is configured (GANTRY_SSH_LISTEN). */
  get configured(): boolean {
    return this.d.config.listen !== undefined;
  }

  /** The host key, once listening. */
  get hostKey(): HostKey | undefined {
    return this.key;
  }

  /** Where the server listens (the port the system chose on port 0), once it does. */
  get address(): { host: string; port: number } | undefined {
    return this.bound;
  }

  /** Loads (or makes) the host key and listens on GANTRY_SSH_LISTEN; undefined when SSH is off. */
  async listen(): Promise<{ host: string; port: number } | undefined> {
    const at = this.d.config.listen;
    if (!at) return undefined;
    if (this.bound) return this.bound;
    const m = await loadModules();
    this.m = m;
    this.key = await m.keys.loadHostKey(this.d.ctx, this.d.secrets);
    const server = new m.ssh2.Server({
      hostKeys: [this.key.privateKey], ident: 'Gantry', keepaliveInterval: KEEPALIVE_MS, keepaliveCountMax: 3, algorithms: { cipher: CIPHERS },
    },
      (conn, info) => this.accept(conn, info.ip));
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(at.port, at.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    server.on('error', (err: Error) => this.d.log.warn({ err }, 'the SSH server failed'));
    const a = server.address() as AddressInfo;
    this.bound = { host: at.host, port: a.port };
    return this.bound;
  }

  /**
   * connectComponentSSH for this caller: the command while SSH listens, the driver has it,
   * the instance runs and the caller may operate it; the host key whenever SSH listens.
   */
  view(p: Principal, row: Pick<InstanceRow, 'id' | 'teamId' | 'status'>): SshComponentView {
    if (!this.bound || !this.key) return NO_SSH;
    const keys = { hostKeyFingerprint: this.key.fingerprint, hostPublicKey: this.key.publicKey };
    if (row.status !== 'running' || !hasSsh(this.d.driver) || row.teamId !== p.teamId || !can(p.role, SSH_CAPABILITY)) return { ...NO_SSH, ...keys };
    const port = this.d.config.publicPort ?? this.bound.port;
    return { sshCommand: sshCommand(row.id, this.d.config.publicHost, port), password: '', isRunning: true, ...keys };
  }

  /** Stops listening and ends every connection (their processes included). */
  async close(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const c of [...this.clients]) this.end(c, 'Gantry is stopping');
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
    this.bound = undefined;
  }

  private accept(conn: Connection, ip: string): void {
    const c: Client = { conn, ip, tries: 0, refusal: '', channels: new Set(), procs: new Set() };
    this.clients.add(c);
    conn.on('error', (err) => this.d.log.info({ err, ip }, 'an SSH connection failed'));
    conn.on('authentication', (auth) => {
      if (auth.method !== 'publickey') return auth.reject(['publickey']); // none, password, keyboard-interactive: not offered
      void this.authenticate(c, auth).catch((err: unknown) => {
        this.d.log.warn({ err }, 'an SSH authentication failed unexpectedly');
        auth.reject(['publickey']);
      });
    });
    conn.on('ready', () => this.ready(c));
    conn.on('close', () => this.closed(c));
  }

  /**
   * A publickey attempt, under the auth throttle (each refused key counts against the address):
   * a query ("would this key do?") is answered by the same rules as a signed attempt, which
   * must also verify; a signed attempt that passes opens the live session before it is accepted.
   */
  private async authenticate(c: Client, auth: PublicKeyAuthContext): Promise<void> {
    if (++c.tries > MAX_AUTH_TRIES) {
      auth.reject();
      c.conn.end();
      return;
    }
    const { keys } = this.m!;
    const fingerprint = keys.fingerprintOf(auth.key.data);
    let a: Authorized;
    try {
      // the prefix subject: the fingerprint's own characters (every fingerprint starts "SHA256:")
      a = await this.d.throttle.guard(c.ip, fingerprint.slice('SHA256:'.length), async () => {
        if (auth.signature) keys.verifySignature(auth);
        return authorize(this.d.ctx, auth.username, fingerprint);
      });
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      this.d.log.info({ ip: c.ip, username: auth.username.slice(0, 128), fingerprint, reason: err.reason, why: err.message }, 'SSH key refused');
      return auth.reject(['publickey']);
    }
    if (!auth.signature) return auth.accept(); // PK_OK: the client signs next
    if (!(await this.admit(c, a))) return auth.reject(['publickey']);
    auth.accept();
  }

  /**
   * The connection as a live session: registered (its places taken) before its caller is read
   * again, so a change committed since the check is seen here or closes it. Too many open: the
   * connection is let in and every channel told why (a refusal the user can read). Answers
   * false when the caller may not keep it after all.
   */
  private async admit(c: Client, a: Authorized): Promise<boolean> {
    const spec = sshSessionSpec(this.d.ctx, a, this.d.config as SshCaps);
    try {
      c.live = this.d.sessions.start(spec);
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      c.authorized = a;
      c.refusal = err.message;
      return true;
    }
    try {
      mayOperate(await spec.reread!());
    } catch (err) {
      c.live.release();
      c.live = undefined;
      if (err instanceof AppError) return false;
      throw err;
    }
    c.authorized = a;
    c.refusal = unavailable(a.instance, this.d.driver);
    c.live.bind((why) => this.end(c, `Gantry closed this session: ${why.message}`));
    return true;
  }

  private ready(c: Client): void {
    const a = c.authorized;
    if (!a) return void c.conn.end();
    this.d.log.info({ ip: c.ip, instanceId: a.instance.id, memberId: a.principal.memberId, sshKeyId: a.principal.keyId }, 'SSH session opened');
    c.conn.on('session', (accept) => this.session(c, accept()));
    c.conn.on('tcpip', (accept, reject, info) => void this.forward(c, a, info.destIP, info.destPort, accept, reject));
    // tcpip-forward (-R) and its kin: refused, the connection goes on
    c.conn.on('request', (_accept, reject, name) => {
      this.d.log.info({ instanceId: a.instance.id, request: name }, 'SSH global request refused');
      reject?.();
    });
  }

  private session(c: Client, session: Session): void {
    const id = c.authorized!.instance.id;
    let pty: TerminalSize | undefined;
    let proc: ExecSession | undefined;
    session.on('pty', (accept, _reject, info) => {
      pty = { cols: clampSize(info.cols, 80), rows: clampSize(info.rows, 24) };
      accept?.();
    });
    session.on('window-change', (accept, _reject, info) => {
      pty = { cols: clampSize(info.cols, 80), rows: clampSize(info.rows, 24) };
      if (proc) void proc.resize(pty).catch(() => {});
      accept?.();
    });
    // agent forwarding and X11 are refused; the session goes on (OpenSSH says so and continues)
    session.on('auth-agent', (_accept, reject) => reject?.());
    session.on('x11', (_accept, reject) => reject?.());
    session.on('env', (_accept, reject) => reject?.());
    session.on('shell', (accept) => void this.run(c, accept(), undefined, pty, (p) => (proc = p)));
    session.on('exec', (accept, _reject, info) => void this.run(c, accept(), ['/bin/sh', '-c', info.command], pty, (p) => (proc = p)));
    session.on('sftp', (accept, reject) => {
      if (c.refusal || !this.d.driver.exec) return reject();
      this.m!.sftp.serveSftp(accept(), this.d.driver, id, this.d.log);
    });
  }

  /** A shell (command undefined) or a command in the container, bridged to the channel; its exit status goes back. */
  private async run(c: Client, channel: ServerChannel, command: string[] | undefined, tty: TerminalSize | undefined, started: (p: ExecSession) => void): Promise<void> {
    c.channels.add(channel);
    let gone = false;
    channel.on('close', () => {
      gone = true;
      c.channels.delete(channel);
    });
    if (c.refusal) return refuse(channel, c.refusal);
    let proc: ExecSession;
    try {
      proc = await this.d.driver.exec!(c.authorized!.instance.id, { command, tty });
    } catch (err) {
      this.d.log.info({ err }, 'an SSH session\'s process could not start');
      return refuse(channel, `instance ${c.authorized!.instance.id} has no shell now: ${(err as Error).message}`);
    }
    // the client left (or Gantry ended the connection) while the engine started it: it goes at once
    if (gone || !this.clients.has(c)) return void proc.close().catch(() => {});
    c.procs.add(proc);
    started(proc);
    channel.on('close', () => {
      c.procs.delete(proc);
      void proc.close().catch(() => {});
    });
    // without a TTY the client's EOF is the command's (`wc -c < file`); on one, the engine would
    // drop the TTY's output with its input, so EOF is left to the shell's own ^D, as sshd does
    channel.pipe(proc.stdin, { end: tty === undefined });
    proc.stdout.pipe(channel, { end: false });
    proc.stderr.pipe(channel.stderr, { end: false });
    await Promise.all([ended(proc.stdout), ended(proc.stderr)]);
    const code = await proc.exited();
    if (channel.destroyed || this.endedHere.has(channel)) return; // Gantry ended it with its reason (end)
    channel.exit(code ?? 255);
    channel.end();
  }

  /** `ssh -L`: a connection to a port of the instance's own container (its address on its network); any other destination is refused. */
  private async forward(c: Client, a: Authorized, host: string, port: number, accept: () => ServerChannel, reject: () => void): Promise<void> {
    if (c.refusal || !this.d.driver.connect || !(SELF_HOSTS.has(host) || host === a.instance.id)) {
      this.d.log.info({ instanceId: a.instance.id, host, port }, 'SSH forward refused');
      return reject();
    }
    let socket: Awaited<ReturnType<NonNullable<ComputeDriver['connect']>>>;
    try {
      socket = await this.d.driver.connect(a.instance.id, port);
    } catch (err) {
      this.d.log.info({ err, instanceId: a.instance.id, port }, 'SSH forward could not connect');
      return reject();
    }
    if (!this.clients.has(c)) {
      socket.destroy();
      return reject(); // the connection ended while the container's port answered
    }
    const channel = accept();
    c.channels.add(channel);
    channel.pipe(socket).pipe(channel);
    socket.on('error', () => channel.destroy());
    channel.on('close', () => {
      c.channels.delete(channel);
      socket.destroy();
    });
  }

  /** Ends a connection: a line on each open channel's stderr, then the connection itself. */
  private end(c: Client, why: string): void {
    // The processes' output stops reaching the channels first: a channel is ended here, and
    // what a closing process still writes must not land after that end.
    for (const p of c.procs) {
      p.stdout.unpipe().resume(); // read to its end, to nowhere: run() waits for that end
      p.stderr.unpipe().resume();
    }
    const open = [...c.channels].filter((ch) => !ch.destroyed);
    for (const ch of open) {
      this.endedHere.add(ch);
      ch.stderr?.write(`\r\n${why}\r\n`);
      ch.exit?.(255);
      ch.end();
    }
    for (const p of c.procs) void p.close().catch(() => {});
    // The connection ends once the client has closed those channels, so it has printed the
    // line and taken the status (OpenSSH drops output still buffered when the connection goes
    // first: seen in CI), or after CLOSE_GRACE_MS from a client that does not answer.
    const closedAll = Promise.all(open.map((ch) => new Promise<void>((r) => ch.once('close', () => r()))));
    const grace = new Promise<void>((r) => setTimeout(r, CLOSE_GRACE_MS).unref());
    void Promise.race([closedAll, grace]).then(() => c.conn.end());
    this.closed(c);
  }

  private closed(c: Client): void {
    this.clients.delete(c);
    c.live?.release();
    for (const p of c.procs) void p.close().catch(() => {});
    c.procs.clear();
  }
}

/** Refused after authentication: the reason on stderr, exit status 1. */
function refuse(channel: ServerChannel, why: string): void {
  channel.stderr.write(`${why}\r\n`);
  channel.exit(1);
  channel.end();
}

function ended(stream: NodeJS.ReadableStream): Promise<void> {
  return new Promise((resolve) => {
    stream.once('end', resolve);
    stream.once('close', resolve);
    stream.once('error', () => resolve());
  });
}

function clampSize(n: number, fallback: number): number {
  return Number.isInteger(n) && n >= 1 ? Math.min(n, 1000) : fallback;
}
