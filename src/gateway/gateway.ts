// The model gateway: measure the request's worst case, admit it, call the upstream (stream
// or not), then settle: exact cost from the real usage, durable usage event and ledger
// charge, release of the unused reservation. Nothing is billed when the upstream fails.
import { PassThrough } from 'node:stream';
import type { FastifyBaseLogger, FastifyReply } from 'fastify';
import type { GatewayConfig } from '../config.ts';
import type { Ctx } from '../domain/context.ts';
import type { Principal } from '../domain/roles.ts';
import type { LedgerObserver, PostedChange } from '../domain/billing/ledger-observer.ts';
import type { Reservations } from '../domain/billing/reservations.ts';
import { usageCostMicro, type UsageRecord } from '../domain/usage/record.ts';
import { modelRecord } from '../domain/models/models.ts';
import { AppError } from '../lib/errors.ts';
import { Admission, type Admitted, type Worst } from './admission.ts';
import { keyScope, memberScope, teamScope, type Counters, type ScopeDelta } from './counters/counters.ts';
import type { UsageSink } from './usage-sink.ts';
import { promptSize } from './tokens.ts';
import { UpstreamRouter } from './upstreams/router.ts';
import { UpstreamError, type Endpoint, type UpstreamRequest, type Usage } from './upstreams/upstream.ts';

type Body = Record<string, any>;

/** Upstream statuses that mean the client's request was refused (400 for the client); any other failure is a 503. */
const CLIENT_FAULT_STATUSES = new Set([400, 413, 422]);

/** The worst case of a request, from its body and the model's context size. */
export function worstCase(endpoint: Endpoint, body: Body, contextSize: number): Worst {
  if (endpoint === 'chat.completions' || endpoint === 'completions') {
    const prompt = endpoint === 'chat.completions' ? body.messages : body.prompt;
    const prompts = endpoint === 'completions' && Array.isArray(prompt) && prompt.length > 0 && typeof prompt[0] !== 'number' ? prompt.length : 1;
    const size = promptSize(prompt);
    const choices = prompts * Number(body.n ?? 1);
    const maxOut = Math.min(Number(body.max_completion_tokens ?? body.max_tokens ?? contextSize), contextSize);
    return { promptTokens: Math.min(size.bound, contextSize * prompts), promptEstimate: size.estimate, outputTokens: maxOut * choices };
  }
  const size = promptSize(endpoint === 'embeddings' ? body.input : [body.query, body.documents]);
  return { promptTokens: size.bound, promptEstimate: size.estimate, outputTokens: 0 };
}

export class Gateway {
  readonly admission: Admission;
  readonly counters: Counters;
  private readonly router: UpstreamRouter;
  readonly sink: UsageSink;
  private readonly ctx: Ctx;
  private readonly log: FastifyBaseLogger;

  constructor(ctx: Ctx, counters: Counters, sink: UsageSink, config: GatewayConfig, log: FastifyBaseLogger) {
    this.ctx = ctx;
    this.counters = counters;
    this.log = log;
    this.sink = sink;
    this.admission = new Admission(ctx, counters, config, sink);
    this.router = new UpstreamRouter(config);
  }

  async listModels(p: Principal) {
    return { object: 'list' as const, data: (await this.admission.visibleModels(p)).map(modelRecord) };
  }

  async getModel(p: Principal, id: string) {
    const m = (await this.admission.visibleModels(p)).find((x) => x.id === id);
    if (!m) throw new AppError('MODEL_NOT_FOUND', `model ${id} does not exist or is not available to this API key`, { model: id });
    return modelRecord(m);
  }

  /** Serve one model request; the reply is sent here (JSON, or an SSE stream). */
  async handle(endpoint: Endpoint, p: Principal, body: Body, reply: FastifyReply): Promise<void> {
    const modelId = String(body.model);
    // The context size is needed for the worst case before the model is checked: use a
    // provisional one and let admission answer MODEL_NOT_FOUND first.
    const ctxSize = (await this.contextSize(modelId)) ?? 1;
    if (endpoint === 'completions' && body.max_tokens === undefined) body.max_tokens = 16; // OpenAI's default for legacy completions
    const adm = await this.admission.admit(p, endpoint, modelId, worstCase(endpoint, body, ctxSize));
    reply.headers(adm.headers);
    const started = performance.now();
    const ac = new AbortController();
    const req: UpstreamRequest = {
      endpoint, body, modelId, contextSize: adm.model.contextSize, requestId: adm.requestId.slice(4),
      createdS: Math.floor(this.ctx.clock.nowMs() / 1000), signal: ac.signal,
    };
    if (body.stream === true && (endpoint === 'chat.completions' || endpoint === 'completions')) {
      return this.stream(adm, req, reply, ac, started);
    }
    let result: { body: Record<string, unknown>; usage: Usage };
    try {
      result = await this.router.call(adm.model.upstream, req);
    } catch (e) {
      await this.release(adm);
      throw this.upstreamFailure(e, adm);
    }
    await this.settle(adm, result.usage, 'completed', started);
    reply.send(result.body);
  }

  private async contextSize(modelId: string): Promise<number | undefined> {
    const m = (await this.admission.catalogueById()).get(modelId);
    return m?.contextSize;
  }

  private async stream(adm: Admitted, req: UpstreamRequest, reply: FastifyReply, ac: AbortController, started: number): Promise<void> {
    const out = new PassThrough();
    let sent = false;
    // From the start, not the first chunk: a client may leave during the time to first token.
    reply.raw.once('close', () => {
      if (!reply.raw.writableFinished) ac.abort(new Error('client closed the stream'));
    });
    const start = () => {
      if (sent) return;
      sent = true;
      reply.header('content-type', 'text/event-stream; charset=utf-8').header('cache-control', 'no-cache');
      reply.send(out);
    };
    const write = (obj: unknown) => {
      start();
      out.write(`data: ${JSON.stringify(obj)}\n\n`);
    };
    let outcome;
    try {
      outcome = await this.router.stream(adm.model.upstream, req, write);
    } catch (e) {
      await this.release(adm);
      const err = this.upstreamFailure(e, adm);
      if (!sent) throw err; // nothing sent yet: a proper HTTP error
      out.end(`data: ${JSON.stringify({ error: { message: err.message, type: 'server_error', param: null, code: err.reason.toLowerCase() } })}\n\n`);
      return;
    }
    const cancelled = !outcome.finished;
    try {
      await this.settle(adm, outcome.usage, cancelled ? 'client_cancelled' : 'completed', started);
    } catch (e) {
      if (!sent) throw e;
      out.end();
      return;
    }
    if (cancelled) {
      start(); // completes the (already closed) reply so Fastify finishes the request
      out.end();
      return;
    }
    if (req.body.stream_options?.include_usage === true) {
      const chat = req.endpoint === 'chat.completions';
      write({
        id: `${chat ? 'chatcmpl' : 'cmpl'}-${req.requestId}`, object: chat ? 'chat.completion.chunk' : 'text_completion',
        created: req.createdS, model: req.modelId, choices: [], usage: usageBody(outcome.usage),
      });
    }
    start();
    out.end('data: [DONE]\n\n'); // only after the usage is durable
  }

  private upstreamFailure(e: unknown, adm: Admitted): AppError {
    if (e instanceof AppError) return e;
    // Only a refusal of the request itself is the client's to fix; an upstream that refuses
    // our credential (401/403), does not know the model name (404) or is overloaded (429)
    // is an upstream failure, like a 5xx.
    if (e instanceof UpstreamError && e.status !== undefined && CLIENT_FAULT_STATUSES.has(e.status)) {
      return new AppError('INVALID_REQUEST_BODY', e.message, { model: adm.model.id, upstreamStatus: e.status }, adm.headers);
    }
    this.log.warn({ err: e, model: adm.model.id, requestId: adm.requestId }, 'upstream failed');
    return new AppError('SERVICE_NOT_AVAILABLE', `the upstream serving ${adm.model.id} is not available; the request was not billed`, { model: adm.model.id }, adm.headers);
  }

  /** Upstream failed: give back the reservation and the counted tokens. */
  private async release(adm: Admitted): Promise<void> {
    await this.counters.settle({ requestId: adm.requestId, rateKey: adm.rateKey, tokensUsed: 0, scopes: adm.scopes, actualMicro: 0n })
      .catch((e) => this.log.error({ err: e }, 'releasing a reservation failed; its lease will expire'));
  }

  private async settle(adm: Admitted, usage: Usage, outcome: UsageRecord['outcome'], started: number): Promise<void> {
    const p = adm.principal;
    const rec: UsageRecord = {
      requestId: adm.requestId, teamId: p.teamId, memberId: p.memberId, keyId: p.keyId, model: adm.model.id,
      endpoint: adm.endpoint, promptTokens: usage.promptTokens, completionTokens: usage.completionTokens,
      inputPricePerMUnits: adm.model.inputPricePerMUnits, outputPricePerMUnits: adm.model.outputPricePerMUnits,
      outcome, durationMs: performance.now() - started, atMs: this.ctx.clock.nowMs(),
    };
    const cost = usageCostMicro(rec);
    try {
      await this.sink.record(rec); // durable from here on: journaled, or event + ledger charge committed
    } catch (e) {
      await this.release(adm);
      this.log.error({ err: e, requestId: adm.requestId }, 'recording usage failed');
      throw new AppError('UNKNOWN', 'the usage of this request could not be recorded; it was not billed');
    }
    if (cost > adm.reservedMicro) this.log.warn({ requestId: adm.requestId, cost: String(cost), reserved: String(adm.reservedMicro) }, 'upstream usage exceeded the reserved worst case');
    await this.counters.settle({
      requestId: adm.requestId, rateKey: adm.rateKey, tokensUsed: usage.promptTokens + usage.completionTokens, scopes: adm.scopes, actualMicro: cost,
    }).catch((e) => this.log.error({ err: e }, 'settling counters failed; state reloads after its TTL'));
  }

  /** Keeps the counters in step with money moved elsewhere (operator charges, top-ups, compute). */
  readonly observer: LedgerObserver = {
    posted: (changes: PostedChange[]) => {
      const deltas: ScopeDelta[] = [];
      for (const c of changes) {
        const d = c.kind === 'charge' ? -c.amountMicro : c.amountMicro;
        deltas.push({ scope: teamScope(c.teamId), deltaMicro: d });
        if (c.kind === 'charge' && c.memberId) deltas.push({ scope: memberScope(c.memberId), deltaMicro: d });
        if (c.kind === 'charge' && c.keyId) deltas.push({ scope: keyScope(c.keyId), deltaMicro: d });
      }
      this.counters.applyPosted(deltas).catch((e) => this.log.error({ err: e }, 'applying a posting to the counters failed'));
    },
    budgetChanged: (scope, subjectId) => {
      this.admission.budgets.delete(`${scope}:${subjectId}`);
      this.counters.invalidate(scope === 'key' ? keyScope(subjectId) : memberScope(subjectId))
        .catch((e) => this.log.error({ err: e }, 'invalidating budget state failed'));
    },
  };

  /** Live reservations per team, shown as the balance's pendingCharges. */
  readonly reservations: Reservations = {
    reservedMicro: (teamId: string) => this.counters.reservedMicro(teamScope(teamId), Date.now()),
  };

  async close(): Promise<void> {
    await this.sink.close();
    await this.router.close();
    await this.counters.close();
  }
}

function usageBody(u: Usage) {
  return { prompt_tokens: u.promptTokens, completion_tokens: u.completionTokens, total_tokens: u.promptTokens + u.completionTokens };
}
