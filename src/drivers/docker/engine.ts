// The Docker Engine HTTP API (v1.41: Debian's dockerd 20.10, Podman's Docker-compatible
// socket, any newer Docker) over undici, on a unix socket or tcp://host:port. Every call has
// a deadline; errors carry the engine's status and words (Podman adds a `cause`).
import { Agent } from 'undici';
import type { Dispatcher } from 'undici';
import type { EngineTarget } from './settings.ts';

const API = '/v1.41';
const LIBPOD_API = '/v4.0.0/libpod';

export class EngineError extends Error {
  readonly status: number;
  /** Podman's `cause` (e.g. "container state improper"), when it gives one */
  readonly engineCause: string | undefined;

  constructor(status: number, message: string, cause?: string) {
    super(message);
    this.status = status;
    this.engineCause = cause;
  }
}

/** It is not there: 404, or Podman's 500 when it went while the call looked it up (a removal racing it). */
export function isNotFound(err: unknown): boolean {
  if (!(err instanceof EngineError)) return false;
  return err.status === 404 || (err.status === 500 && /no such (container|volume|image|network)/i.test(`${err.engineCause ?? ''} ${err.message}`));
}

/**
 * The container is not in a state that allows the call (kill of one that is not running,
 * removal of a running one, start of a running one): Docker says 409 or 304, Podman 500 with
 * `container state improper`.
 */
export function isStateConflict(err: unknown): boolean {
  if (!(err instanceof EngineError)) return false;
  if (err.status === 409 || err.status === 304) return true;
  return err.status === 500 && /state improper|not running|is already|in progress/i.test(`${err.engineCause ?? ''} ${err.message}`);
}

export interface CallOptions {
  body?: unknown;
  /** a body sent as it is (a tar stream) instead of JSON */
  raw?: Buffer | NodeJS.ReadableStream;
  headers?: Record<string, string>;
  query?: Record<string, string | number | boolean | undefined>;
  signal?: AbortSignal | undefined;
  /** the most the call may take to answer (default: the client's) */
  timeoutMs?: number;
  /** Podman's own API (`/v4.0.0/libpod…`) instead of the Docker-compatible one */
  libpod?: boolean;
}

export interface EngineVersion {
  engine: 'docker' | 'podman';
  version: string;
  apiVersion: string;
}

export class EngineClient {
  private readonly agent: Agent;
  readonly target: EngineTarget;
  private readonly timeoutMs: number;
  private versionP: Promise<EngineVersion> | undefined;

  constructor(target: EngineTarget, opts: { timeoutMs?: number } = {}) {
    this.target = target;
    this.timeoutMs = opts.timeoutMs ?? 10_000;
    this.agent = new Agent({
      ...(target.socketPath ? { connect: { socketPath: target.socketPath } } : {}),
      keepAliveTimeout: 10_000,
      connections: 16,
    });
  }

  private async send(method: Dispatcher.HttpMethod, path: string, o: CallOptions, stream: boolean): Promise<Dispatcher.ResponseData> {
    const headers: Record<string, string> = { ...o.headers };
    let body: Dispatcher.DispatchOptions['body'];
    if (o.raw) {
      body = o.raw as Dispatcher.DispatchOptions['body'];
      headers['content-type'] ??= 'application/x-tar';
    } else if (o.body !== undefined) {
      body = JSON.stringify(o.body);
      headers['content-type'] = 'application/json';
    }
    const query: Record<string, string> = {};
    for (const [k, v] of Object.entries(o.query ?? {})) if (v !== undefined) query[k] = String(v);
    const timeout = o.timeoutMs ?? this.timeoutMs;
    const res = await this.agent.request({
      origin: this.target.origin, path: `${o.libpod ? LIBPOD_API : API}${path}`, method, headers, body, query,
      signal: o.signal ?? null, headersTimeout: timeout, bodyTimeout: stream ? 0 : timeout,
    });
    if (res.statusCode >= 400) {
      const text = await res.body.text().catch(() => '');
      let message = text.trim() || `HTTP ${res.statusCode}`;
      let cause: string | undefined;
      try {
        const j = JSON.parse(text) as { message?: string; cause?: string };
        if (j.message) message = j.message;
        cause = j.cause;
      } catch {
        // not JSON: the text is the message
      }
      throw new EngineError(res.statusCode, message, cause);
    }
    return res;
  }

  /** A call whose answer is JSON (or nothing: 204, 304). */
  async json<T>(method: Dispatcher.HttpMethod, path: string, o: CallOptions = {}): Promise<T | undefined> {
    const res = await this.send(method, path, o, false);
    const text = await res.body.text();
    if (res.statusCode === 304 || !text.trim()) return undefined;
    return JSON.parse(text) as T;
  }

  /** A call whose answer is read as it comes (logs, a pull's progress); the caller consumes or destroys the body. */
  async stream(method: Dispatcher.HttpMethod, path: string, o: CallOptions = {}): Promise<Dispatcher.ResponseData> {
    return this.send(method, path, o, true);
  }

  /** GET /version, once: which engine this is (Podman names itself in Components). */
  version(): Promise<EngineVersion> {
    this.versionP ??= this.json<{ Version?: string; ApiVersion?: string; Components?: { Name?: string }[] }>('GET', '/version').then((v) => ({
      engine: v?.Components?.some((c) => /podman/i.test(c.Name ?? '')) ? 'podman' as const : 'docker' as const,
      version: v?.Version ?? '',
      apiVersion: v?.ApiVersion ?? '',
    }));
    this.versionP.catch(() => {
      this.versionP = undefined;
    });
    return this.versionP;
  }

  /** Drops every connection and aborts what is in flight (a pull, a log read). */
  async close(): Promise<void> {
    if (this.agent.destroyed) return;
    await this.agent.destroy(null).catch(() => {});
  }
}
