// Processes in a pod's container through the API server's `exec` subresource (the SSH
// endpoint's shells, commands and SFTP helpers: ComputeDriver.exec; the web terminal:
// ComputeDriver.terminal), on the protocol kubectl speaks:
//   GET /api/v1/namespaces/{ns}/pods/{pod}/exec?command=…&container=…&stdin=&stdout=&stderr=&tty=
//   upgraded to a WebSocket of subprotocol `v5.channel.k8s.io` (`v4.channel.k8s.io` when the
//   server offers only that), each binary message one channel byte then its bytes:
//     0 stdin, 1 stdout, 2 stderr, 3 error (a metav1.Status, JSON: `Success`, or `Failure` with
//     reason `NonZeroExitCode` and the code in details.causes[{reason: 'ExitCode', message}]),
//     4 resize (`{"Width":…,"Height":…}`), and v5's 255 close (`[255, 0]`: stdin's EOF).
//   A refusal comes before the upgrade, as a Status: 404 (no such pod), 400 (not running, no
//   such container).
//
// `ws` directly rather than @kubernetes/client-node's Exec/WebSocketHandler: that client writes
// every stdin chunk with no regard for the socket's buffer and every stdout frame with no
// regard for the reader (no backpressure either way: an scp of a large file would be held in
// memory), resizes only through a stdout stream shaped like a TTY (`rows`/`columns` and
// 'resize' events), loses a refusal's Status body and code (ws' "Unexpected server response"),
// and offers v3/v2/v1 whose error channel is not a Status. The kubeconfig's credentials are
// still the client's: KubeConfig.applyToHTTPSOptions fills the headers and TLS options.
import { Duplex, PassThrough, type Readable, Writable } from 'node:stream';
import type * as k8s from '@kubernetes/client-node';
import WebSocket from 'ws';
import { type ExecOptions, type ExecSession, type TerminalSession, type TerminalSize, TerminalUnavailable } from '../types.ts';

export const EXEC_PROTOCOLS = ['v5.channel.k8s.io', 'v4.channel.k8s.io'] as const;
export const CHANNEL = { stdin: 0, stdout: 1, stderr: 2, error: 3, resize: 4, close: 255 } as const;

/** bash when the image has it, else sh (as docker/exec.ts) */
const SHELL = 'if [ -x /bin/bash ]; then exec /bin/bash; fi; exec /bin/sh';
/** the longest the API server may take to upgrade the connection */
const OPEN_TIMEOUT_MS = 10_000;

/** A v1 Status as the exec's error channel (3) carries it. */
export interface ExecStatus {
  status?: string;
  message?: string;
  reason?: string;
  details?: { causes?: { reason?: string; message?: string }[] };
}

/** The exit code a Status says: 0 for Success, the ExitCode cause of NonZeroExitCode; null otherwise (the runtime could not run it). */
export function exitCodeOf(s: ExecStatus | undefined): number | null {
  if (!s) return null;
  if (s.status === 'Success') return 0;
  if (s.reason === 'NonZeroExitCode') {
    const n = Number(s.details?.causes?.find((c) => c.reason === 'ExitCode')?.message);
    if (Number.isInteger(n)) return n;
  }
  return null;
}

/**
 * The command run: the image's shell by default; `env` entries through `env` (the exec
 * subresource has no environment of its own); on a TTY, the size set by `stty` first (the
 * resize frame goes after the upgrade: a command reading the size at once would race it).
 */
export function execArgv(o: ExecOptions): string[] {
  let argv = o.command ?? ['/bin/sh', '-c', SHELL];
  if (o.env?.length) argv = ['env', ...o.env, ...argv];
  if (o.tty) argv = ['/bin/sh', '-c', `stty rows ${Math.trunc(o.tty.rows)} cols ${Math.trunc(o.tty.cols)} 2>/dev/null; exec "$@"`, 'sh', ...argv];
  return argv;
}

/** The exec subresource's path and query, as kubectl sends it (each argv entry a `command`). */
export function execPath(namespace: string, pod: string, container: string, argv: string[], tty: boolean): string {
  const q = new URLSearchParams();
  for (const a of argv) q.append('command', a);
  q.set('container', container);
  q.set('stdin', 'true');
  q.set('stdout', 'true');
  // the API server refuses stderr with a TTY: the TTY is one stream
  q.set('stderr', String(!tty));
  q.set('tty', String(tty));
  return `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods/${encodeURIComponent(pod)}/exec?${q}`;
}

/** Opens a WebSocket to the API server at `path` on one of `protocols`; a refusal before the upgrade rejects with its Status. */
export async function openChannels(kc: k8s.KubeConfig, path: string, protocols: readonly string[]): Promise<WebSocket> {
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new Error('the kubeconfig names no current cluster');
  const url = cluster.server.replace(/^http/, 'ws').replace(/\/$/, '') + path;
  const opts: Record<string, unknown> = {};
  await kc.applyToHTTPSOptions(opts);
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, [...protocols], { ...opts, handshakeTimeout: OPEN_TIMEOUT_MS });
    ws.once('open', () => {
      // frames that came with the upgrade's answer would be emitted before the caller's
      // handlers: none is read until it resume()s
      ws.pause();
      resolve(ws);
    });
    ws.once('error', reject);
    ws.once('unexpected-response', (req, res) => {
      let raw = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        if (raw.length < 65536) raw += c;
      });
      res.on('end', () => {
        req.destroy();
        let s: ExecStatus = {};
        try {
          s = JSON.parse(raw) as ExecStatus;
        } catch {}
        const why = s.message ?? `the API server answered ${res.statusCode}`;
        // 404: no such pod; 400: it does not run (no host yet, its container gone or not started)
        reject(res.statusCode === 404 || res.statusCode === 400 ? new TerminalUnavailable(why) : Object.assign(new Error(why), { code: res.statusCode }));
      });
    });
  });
}

/** A process in a pod's container, over one exec WebSocket. */
export class PodExec implements ExecSession, TerminalSession {
  readonly stdin: Writable;
  readonly stdout: Readable;
  readonly stderr: Readable;
  private duplex: Duplex | undefined;
  private readonly ws: WebSocket;
  private status: ExecStatus | undefined;
  private readonly ended: Promise<void>;
  private readonly tty: boolean;

  constructor(ws: WebSocket, tty: boolean) {
    this.ws = ws;
    this.tty = tty;
    const out = new PassThrough();
    const err = new PassThrough();
    this.stdout = out;
    this.stderr = err;
    let blocked = 0;
    const unblock = () => {
      if (--blocked === 0) ws.resume();
    };
    ws.on('message', (data: Buffer, binary: boolean) => {
      const frame = binary ? data : Buffer.from(data);
      if (frame.length < 1) return;
      const payload = frame.subarray(1);
      switch (frame[0]) {
        case CHANNEL.stdout:
        case CHANNEL.stderr: {
          const target = frame[0] === CHANNEL.stdout ? out : err;
          if (payload.length && !target.write(payload)) {
            // backpressure to the API server: read no more frames until the reader drains
            blocked++;
            ws.pause();
            target.once('drain', unblock);
          }
          break;
        }
        case CHANNEL.error:
          try {
            this.status = JSON.parse(payload.toString('utf8')) as ExecStatus;
          } catch {
            this.status = { status: 'Failure', message: payload.toString('utf8') };
          }
          // not a process's exit (the runtime could not run it): say why, as kubectl does
          if (exitCodeOf(this.status) === null && this.status.message && !err.writableEnded) err.write(`${this.status.message}\n`);
          break;
      }
    });
    this.ended = new Promise((resolve) => {
      const finish = () => {
        out.end();
        err.end();
        resolve();
      };
      ws.once('close', finish);
      ws.on('error', () => ws.terminate());
    });
    ws.resume(); // paused by openChannels until these handlers were on
    const v5 = ws.protocol === 'v5.channel.k8s.io';
    this.stdin = new Writable({
      write(chunk: Buffer, _enc, cb) {
        if (ws.readyState !== WebSocket.OPEN) return cb();
        // the callback once the frame is on the socket: backpressure to the writer
        ws.send(Buffer.concat([Buffer.of(CHANNEL.stdin), chunk]), { binary: true }, () => cb());
      },
      final(cb) {
        // v5: stdin's EOF reaches the process. v4 has no way to say it but closing the whole
        // connection (which ends the process's output too): the process then reads no EOF.
        if (v5 && ws.readyState === WebSocket.OPEN) ws.send(Buffer.of(CHANNEL.close, CHANNEL.stdin), { binary: true }, () => cb());
        else cb();
      },
    });
  }

  /** stdin and stdout as one stream (the web terminal's), made when first asked: it reads stdout. */
  get stream(): Duplex {
    this.duplex ??= Duplex.from({ readable: this.stdout, writable: this.stdin });
    return this.duplex;
  }

  /** The subprotocol the API server chose. */
  get protocol(): string {
    return this.ws.protocol;
  }

  exited(): Promise<number | null> {
    return this.ended.then(() => exitCodeOf(this.status));
  }

  async resize(size: TerminalSize): Promise<void> {
    if (!this.tty || this.ws.readyState !== WebSocket.OPEN) return;
    const body = JSON.stringify({ Width: Math.trunc(size.cols), Height: Math.trunc(size.rows) });
    await new Promise<void>((resolve) => this.ws.send(Buffer.concat([Buffer.of(CHANNEL.resize), Buffer.from(body)]), { binary: true }, () => resolve()));
  }

  /**
   * Closes the connection. The kubelet's streaming server ends the exec's streams with it;
   * whether the container runtime then kills the process is the runtime's (containerd's CRI,
   * measured nowhere here: the fake API server kills its stand-in process).
   */
  async close(): Promise<void> {
    if (this.ws.readyState === WebSocket.CLOSED) return;
    this.ws.close(1000);
    const timer = setTimeout(() => this.ws.terminate(), 2_000);
    await this.ended;
    clearTimeout(timer);
  }
}

/** Runs `o` in container `container` of pod `pod` (`ComputeDriver.exec`). */
export async function podExec(kc: k8s.KubeConfig, namespace: string, pod: string, container: string, o: ExecOptions): Promise<PodExec> {
  const tty = o.tty !== undefined;
  const ws = await openChannels(kc, execPath(namespace, pod, container, execArgv(o), tty), EXEC_PROTOCOLS);
  const p = new PodExec(ws, tty);
  if (o.tty) await p.resize(o.tty);
  return p;
}

/**
 * A TCP connection to `port` of a pod through its `portforward` subresource (`ssh -L`:
 * ComputeDriver.connect), on the WebSocket protocol `v4.channel.k8s.io`:
 *   GET /api/v1/namespaces/{ns}/pods/{pod}/portforward?ports=<port>
 * one port per connection, so its data channel is 0 and its error channel 1; the API server's
 * first frame on each channel is the port (2 bytes, little-endian), then channel 0 carries the
 * connection's bytes both ways and channel 1 a message if the kubelet could not dial it. There
 * is no half-close: the stream's end() leaves the connection open (the other side's answer may
 * still come); destroy() closes it.
 */
export class PortForwardStream extends Duplex {
  private readonly ws: WebSocket;
  private readonly seen = new Set<number>();
  private failure = '';

  constructor(ws: WebSocket) {
    super();
    this.ws = ws;
    ws.on('message', (data: Buffer) => {
      if (data.length < 1) return;
      const channel = data[0]!;
      let payload = data.subarray(1);
      // each channel's first frame begins with the port it is for
      if (!this.seen.has(channel)) {
        this.seen.add(channel);
        payload = payload.subarray(2);
      }
      if (channel === 0 && payload.length && !this.push(payload)) ws.pause();
      else if (channel === 1 && payload.length) this.failure += payload.toString('utf8');
    });
    ws.once('close', () => {
      if (this.failure) this.destroy(new Error(this.failure));
      else this.push(null);
    });
    ws.on('error', () => ws.terminate());
    ws.resume(); // paused by openChannels until these handlers were on
  }

  override _read(): void {
    this.ws.resume();
  }

  override _write(chunk: Buffer, _enc: BufferEncoding, cb: (err?: Error | null) => void): void {
    if (this.ws.readyState !== WebSocket.OPEN) return void cb(new Error('the port-forward connection is closed'));
    this.ws.send(Buffer.concat([Buffer.of(0), chunk]), { binary: true }, () => cb());
  }

  override _final(cb: () => void): void {
    cb();
  }

  override _destroy(err: Error | null, cb: (err?: Error | null) => void): void {
    if (this.ws.readyState === WebSocket.OPEN || this.ws.readyState === WebSocket.CONNECTING) this.ws.close(1000);
    cb(err);
  }
}

export const PORTFORWARD_PROTOCOLS = ['v4.channel.k8s.io'] as const;

/** Opens a port-forward to `port` of `pod` (`ComputeDriver.connect`); TerminalUnavailable when the pod does not exist or run. */
export async function podPortForward(kc: k8s.KubeConfig, namespace: string, pod: string, port: number): Promise<PortForwardStream> {
  const path = `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods/${encodeURIComponent(pod)}/portforward?ports=${Math.trunc(port)}`;
  return new PortForwardStream(await openChannels(kc, path, PORTFORWARD_PROTOCOLS));
}
