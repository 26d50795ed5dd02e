// WebSockets for the web terminal: the upgrade requests of a path reach the app's route like
// any request (its hooks: request id, dependency check, auth declaration, validation, the one
// error handler: a refusal is an HTTP answer in the route's family before any 101), and the
// route hands the connection to `ws` once the domain has said yes. Then the bridge: browser ⇄
// the driver's terminal session.
//
// Why `ws` (noServer) and not @fastify/websocket: @fastify/websocket takes every upgrade of the
// server (a route without `websocket: true` answers 404 to one) and routes with its own
// options; here one route upgrades, every other request with an Upgrade header stays a plain
// request as before (Node's `shouldUpgradeCallback`, which says which upgrades fire 'upgrade').
// `ws` is what @fastify/websocket wraps, and already a dependency of @kubernetes/client-node.
//
// The protocol (docs/compat-decisions.md): binary frames are the terminal's bytes both ways
// (keystrokes in, the TTY's output out); a text frame is a JSON control message from the
// browser, `{"type":"resize","cols":C,"rows":R}`. The server closes with 1000 when the shell
// ends, 4000 after the idle limit (no byte either way), 4001 at the lifetime limit, 4003 when
// the caller lost the right to it (its key revoked, its member disabled or demoted to a role
// that may not operate instances, its team suspended: the reason says which), 1001 when
// Gantry stops, 1011 when the engine's stream fails; closing the socket from the browser ends
// the shell and what it started (the driver's TerminalSession.close). Backpressure: the
// engine's stream is paused while more than 1 MiB waits to go to the browser, and the
// browser's socket while the engine's stream does not take more.
import type { IncomingMessage } from 'node:http';
import { nodeHttp } from '../lib/node-http.ts';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { FastifyBaseLogger } from 'fastify';
import { type RawData, type WebSocket, WebSocketServer } from 'ws';
import type { AppError } from '../lib/errors.ts';
import type { OpenedTerminal } from '../domain/terminals/terminals.ts';
import type { App } from './types.ts';

const PENDING = Symbol('gantry.upgrade');
const PATHS = Symbol('gantry.upgradePaths');
/** the most a browser frame may carry (keystrokes, a paste) */
const MAX_FRAME_BYTES = 64 * 1024;
/** the engine's stream pauses while this much waits for the browser, and resumes below LOW */
const HIGH_WATER = 1024 * 1024;
const LOW_WATER = 256 * 1024;
/** a ping this often keeps proxies in between from closing a quiet terminal */
const PING_MS = 30_000;
/** the close code of a terminal whose caller lost the right to it (a 403 as a WebSocket says it) */
export const ACCESS_WITHDRAWN = 4003;
/** a close frame's reason is at most 123 bytes */
const MAX_REASON_BYTES = 123;

interface Pending {
  socket: Duplex;
  head: Buffer;
}

type UpgradeRequest = IncomingMessage & { [PENDING]?: Pending };
type UpgradeTest = (req: IncomingMessage) => boolean;
type UpgradingServer = App['server'] & { [PATHS]?: Set<UpgradeTest>; shouldUpgradeCallback?: UpgradeTest };

function pathOf(url: string | undefined): string {
  return (url ?? '').split('?')[0]!.replace(/\/+$/, '');
}

/**
 * Upgrade requests to `path` go through the app's routing with their socket kept aside
 * (`pendingUpgrade`); other upgrade requests stay plain requests. Once per server.
 */
export function acceptUpgrades(app: App, path: string): void {
  acceptUpgradesWhere(app, (req) => pathOf(req.url) === path);
}

/** The same for every upgrade request `accepts` says yes to (an instance's ports: a prefix, a host). */
export function acceptUpgradesWhere(app: App, accepts: UpgradeTest): void {
  const server = app.server as UpgradingServer;
  if (server[PATHS]) {
    server[PATHS].add(accepts);
    return;
  }
  const tests = new Set([accepts]);
  server[PATHS] = tests;
  // Node ≥ 24.9: only these fire 'upgrade' (before, with a listener, every upgrade does: it is routed alike below)
  server.shouldUpgradeCallback = (req) => [...tests].some((t) => t(req));
  server.on('upgrade', (req: UpgradeRequest, socket: Duplex, head: Buffer) => {
    socket.on('error', () => {}); // a client gone mid-handshake
    req[PENDING] = { socket, head };
    const res = new nodeHttp.ServerResponse(req);
    res.assignSocket(socket as Socket);
    res.shouldKeepAlive = false;
    res.on('finish', () => socket.end()); // answered instead of upgraded: the connection ends with the answer
    app.routing(req, res);
  });
}

/** The socket of an upgrade request (taken once), or undefined for a plain request. */
export function pendingUpgrade(req: IncomingMessage): Pending | undefined {
  const r = req as UpgradeRequest;
  const p = r[PENDING];
  delete r[PENDING];
  return p;
}

/** Whether the request is a well-formed WebSocket opening handshake (what `ws` would accept). */
export function isWebSocketHandshake(req: IncomingMessage): boolean {
  const key = req.headers['sec-websocket-key'];
  const version = req.headers['sec-websocket-version'];
  return req.method === 'GET' && String(req.headers.upgrade ?? '').toLowerCase() === 'websocket'
    && typeof key === 'string' && /^[+/0-9A-Za-z]{22}==$/.test(key) && (version === '13' || version === '8');
}

export interface TerminalLimits {
  idleMs: number;
  lifetimeMs: number;
}

/** The terminals bridged by this app: each browser socket to its shell; all closed when the app closes. */
export class TerminalSockets {
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES, perMessageDeflate: false, clientTracking: false });
  private readonly shutdowns = new Set<() => void>();
  private readonly log: FastifyBaseLogger;
  private readonly limits: () => TerminalLimits;

  constructor(log: FastifyBaseLogger, limits: () => TerminalLimits) {
    this.log = log;
    this.limits = limits;
  }

  /** Completes the handshake and bridges; the terminal is closed if the browser went meanwhile. */
  accept(req: IncomingMessage, upgrade: Pending, opened: OpenedTerminal): void {
    let accepted = false;
    this.wss.handleUpgrade(req, upgrade.socket, upgrade.head, (ws) => {
      accepted = true;
      this.bridge(ws, opened);
    });
    if (accepted) return;
    opened.live.release();
    void opened.session.close().catch((err: unknown) => this.log.warn({ err }, 'closing an unused terminal failed'));
  }

  /** Ends every terminal (the app is closing): 1001, then the socket is cut if the browser does not answer. */
  closeAll(): void {
    for (const end of [...this.shutdowns]) end();
  }

  private bridge(ws: WebSocket, opened: OpenedTerminal): void {
    const { session } = opened;
    const exec = session.stream;
    const log = this.log.child({ instanceId: opened.instanceId, memberId: opened.principal.memberId });
    const limits = this.limits();
    let ended = false;
    let paused = false;
    const end = (code: number, reason: string) => {
      if (ended) return;
      ended = true;
      opened.live.release();
      this.shutdowns.delete(shutdown);
      clearTimeout(idle);
      clearTimeout(lifetime);
      clearInterval(ping);
      if (ws.readyState === ws.OPEN) {
        ws.close(code, reason);
        setTimeout(() => ws.terminate(), 2000).unref(); // a browser that never answers the close
      } else ws.terminate();
      session.close().then(
        () => log.info({ code, reason }, 'terminal closed'),
        (err: unknown) => log.warn({ err }, 'ending a terminal\'s shell failed'),
      );
    };
    const shutdown = () => end(1001, 'Gantry is stopping');
    this.shutdowns.add(shutdown);
    const idle = setTimeout(() => end(4000, 'idle for too long'), limits.idleMs);
    const lifetime = setTimeout(() => end(4001, 'the terminal reached its time limit'), limits.lifetimeMs);
    const ping = setInterval(() => ws.ping(), PING_MS);
    for (const t of [idle, lifetime, ping]) t.unref();
    log.info('terminal opened');
    opened.live.bind((why) => end(ACCESS_WITHDRAWN, closeReason(why)));

    exec.on('data', (chunk: Buffer) => {
      idle.refresh();
      ws.send(chunk, { binary: true }, () => {
        if (paused && ws.bufferedAmount < LOW_WATER) {
          paused = false;
          exec.resume();
        }
      });
      if (!paused && ws.bufferedAmount > HIGH_WATER) {
        paused = true;
        exec.pause();
      }
    });
    exec.on('end', () => end(1000, 'the shell ended'));
    exec.on('close', () => end(1000, 'the shell ended'));
    exec.on('error', (err) => {
      log.warn({ err }, 'the terminal\'s stream failed');
      end(1011, 'the terminal\'s connection to the engine failed');
    });

    ws.on('message', (data: RawData, isBinary: boolean) => {
      idle.refresh();
      if (!isBinary) return this.control(session, data, log);
      if (!exec.write(asBuffer(data))) {
        ws.pause();
        exec.once('drain', () => ws.resume());
      }
    });
    ws.on('close', () => end(1000, 'closed by the browser'));
    ws.on('error', (err) => {
      log.info({ err }, 'the terminal\'s WebSocket failed');
      end(1011, 'the WebSocket failed');
    });
  }

  /** A control message: `{"type":"resize","cols":C,"rows":R}`; anything else is ignored. */
  private control(session: OpenedTerminal['session'], data: RawData, log: FastifyBaseLogger): void {
    let m: { type?: unknown; cols?: unknown; rows?: unknown };
    try {
      m = JSON.parse(asBuffer(data).toString('utf8')) as typeof m;
    } catch {
      return;
    }
    if (m?.type !== 'resize' || !isSize(m.cols) || !isSize(m.rows)) return;
    session.resize({ cols: m.cols, rows: m.rows }).catch((err: unknown) => log.info({ err }, 'resizing the terminal failed'));
  }
}

/** Why the caller lost the terminal, in at most a close frame's 123 bytes. */
function closeReason(why: AppError): string {
  let text = why.message;
  while (Buffer.byteLength(text) > MAX_REASON_BYTES) text = text.slice(0, -1);
  return text;
}

function isSize(n: unknown): n is number {
  return Number.isInteger(n) && (n as number) >= 1 && (n as number) <= 1000;
}

function asBuffer(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}
