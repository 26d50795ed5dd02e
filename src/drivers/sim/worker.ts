// A serverless worker of the sim driver: a real HTTP server on 127.0.0.1, so the router,
// its queue and its timeouts are exercised over real sockets. It answers
//  - the endpoint's health path: 200 once booted (503 after SIM_HEALTH_FAIL_AFTER_S seconds
//    of the injected clock, when that env is set);
//  - POST /v1/chat/completions and /v1/completions: the simulated model of src/model-sim/ (stream
//    and not);
//  - anything else: a JSON echo {workerId, method, path, query, headers, body, bytes,
//    inflight, peakInflight}: the requests it was answering at once when this one arrived
//    (itself included) and the most it ever answered at once, so a test can see that the
//    router kept to `maxConcurrent`, whichever replica sent them.
// Request headers `x-sim-delay-ms: N` delay the answer N ms (real time),
// `x-sim-status: N` answers with that status, and `x-sim-headers: {JSON object}` adds
// those headers to the echo (a value may be a list: several Set-Cookie).
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Clock } from '../../lib/clock.ts';
import { ModelSim, type SimEndpoint } from '../../model-sim/model.ts';
import { nodeHttp } from '../../lib/node-http.ts';

/** The simulated model a worker serves: a small context so tests can reach its limits. */
const WORKER_MODEL = { id: 'sim-worker-llm', contextSize: 8192 };

export interface SimWorkerOptions {
  workerId: string;
  healthPath: string;
  envs: { key: string; value: string }[];
  clock: Clock;
  /** llm speed of the simulated model */
  ttftMs?: number;
  tokensPerSecond?: number;
}

export class SimWorkerServer {
  private readonly server: Server;
  private readonly opts: SimWorkerOptions;
  private readonly bootedAtMs: number;
  private readonly healthFailAfterMs: number | undefined;
  private readonly llm: ModelSim;
  private address_: string | undefined;
  private served = 0;
  private inflight = 0;
  private peakInflight = 0;

  constructor(opts: SimWorkerOptions) {
    this.opts = opts;
    this.bootedAtMs = opts.clock.nowMs();
    const failAfter = opts.envs.find((e) => e.key === 'SIM_HEALTH_FAIL_AFTER_S')?.value;
    this.healthFailAfterMs = failAfter !== undefined && Number.isFinite(Number(failAfter)) ? Number(failAfter) * 1000 : undefined;
    this.llm = new ModelSim({ ttftMs: opts.ttftMs ?? 5, tokensPerSecond: opts.tokensPerSecond ?? 2000 });
    this.server = nodeHttp.createServer((req, res) => {
      this.handle(req, res).catch((e: unknown) => {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: e instanceof Error ? e.message : String(e) }));
      });
    });
    // Keep-alive like a real service behind a proxy; the router pools its connections.
    this.server.keepAliveTimeout = 30_000;
  }

  async listen(): Promise<string> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(0, '127.0.0.1', () => resolve());
    });
    const a = this.server.address() as AddressInfo;
    this.address_ = `127.0.0.1:${a.port}`;
    return this.address_;
  }

  get address(): string | undefined {
    return this.address_;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private healthy(): boolean {
    return this.healthFailAfterMs === undefined || this.opts.clock.nowMs() - this.bootedAtMs < this.healthFailAfterMs;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://worker');
    if (req.method === 'GET' && url.pathname === this.opts.healthPath) {
      const ok = this.healthy();
      res.writeHead(ok ? 200 : 503, { 'content-type': 'text/plain' });
      res.end(ok ? 'ok' : 'unhealthy');
      return;
    }
    this.inflight++;
    this.peakInflight = Math.max(this.peakInflight, this.inflight);
    const inflight = this.inflight;
    res.once('close', () => this.inflight--);
    const body = await readBody(req);
    this.served++;
    const delay = Number(req.headers['x-sim-delay-ms'] ?? 0);
    if (Number.isFinite(delay) && delay > 0) await sleep(Math.min(delay, 3_600_000));
    const forced = Number(req.headers['x-sim-status'] ?? 0);
    if (Number.isInteger(forced) && forced >= 200 && forced <= 599) {
      res.writeHead(forced, { 'content-type': 'application/json', 'x-sim-worker-id': this.opts.workerId });
      res.end(JSON.stringify({ workerId: this.opts.workerId, status: forced }));
      return;
    }
    const llm: SimEndpoint | undefined = req.method === 'POST'
      ? url.pathname === '/v1/chat/completions' ? 'chat.completions' : url.pathname === '/v1/completions' ? 'completions' : undefined
      : undefined;
    if (llm) return this.answerLlm(llm, body, res);
    const headers = { ...req.headers };
    delete headers.authorization;
    const text = body.toString('utf8');
    let parsed: unknown = text;
    try { parsed = text ? JSON.parse(text) : null; } catch { /* not JSON: echoed as text */ }
    res.writeHead(200, { 'content-type': 'application/json', ...answerHeaders(req), 'x-sim-worker-id': this.opts.workerId });
    res.end(JSON.stringify({
      workerId: this.opts.workerId, method: req.method, path: url.pathname,
      query: Object.fromEntries(url.searchParams), headers, body: parsed, bytes: body.length,
      inflight, peakInflight: this.peakInflight,
    }));
  }

  private async answerLlm(endpoint: SimEndpoint, raw: Buffer, res: ServerResponse): Promise<void> {
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
      if (!body || typeof body !== 'object') throw new Error('not an object');
    } catch {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'the body must be a JSON object', type: 'invalid_request_error' } }));
      return;
    }
    const ac = new AbortController();
    res.on('close', () => ac.abort());
    const upstreamReq = {
      endpoint, body: { ...body, model: WORKER_MODEL.id }, modelId: String(body.model ?? WORKER_MODEL.id), contextSize: WORKER_MODEL.contextSize,
      requestId: `${this.opts.workerId}-${this.served}`, createdS: Math.floor(this.opts.clock.nowMs() / 1000), signal: ac.signal,
    };
    if (body.stream === true) {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-sim-worker-id': this.opts.workerId });
      await this.llm.stream(upstreamReq, (chunk) => { res.write(`data: ${JSON.stringify(chunk)}\n\n`); });
      res.end('data: [DONE]\n\n');
      return;
    }
    const { body: answer } = await this.llm.call(upstreamReq);
    res.writeHead(200, { 'content-type': 'application/json', 'x-sim-worker-id': this.opts.workerId });
    res.end(JSON.stringify(answer));
  }
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of req) parts.push(c as Buffer);
  return Buffer.concat(parts);
}

/** The headers a request asks the echo to answer with (`x-sim-headers`); none when it is not a JSON object of strings or lists of strings. */
function answerHeaders(req: IncomingMessage): Record<string, string | string[]> {
  const raw = req.headers['x-sim-headers'];
  if (typeof raw !== 'string') return {};
  try {
    const v = JSON.parse(raw) as unknown;
    if (!v || typeof v !== 'object' || Array.isArray(v)) return {};
    const ok = Object.values(v).every((x) => typeof x === 'string' || (Array.isArray(x) && x.every((y) => typeof y === 'string')));
    return ok ? v as Record<string, string | string[]> : {};
  } catch {
    return {};
  }
}
