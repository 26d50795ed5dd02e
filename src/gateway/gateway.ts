// The model request pipeline, knowing nothing of HTTP: measure the request's worst case,
// admit it, call the upstream (stream or not), then settle: exact cost from the real usage,
// durable usage event and ledger charge, release of the unused reservation. Nothing is
// billed when the upstream fails. The HTTP routes (http/model-answer.ts) and, later, batch
// lines and serverless call `run` alike.
import type { Logger } from '../lib/logger.ts';
import type { GatewayConfig } from '../config.ts';
import type { Ctx } from '../domain/context.ts';
import type { Principal } from '../domain/roles.ts';
import type { SpendAdmission } from '../domain/spend/admission.ts';
import { usageCostMicro, type UsageRecord } from '../domain/usage/record.ts';
import { modelRecord, upstreamTokenizer } from '../domain/models/models.ts';
import { AppError } from '../lib/errors.ts';
import { dependencyRefusal, isDatabaseUnreachable } from '../lib/dependencies.ts';
import type { DependencyHealth } from '../store/health.ts';
import type { SecretBox } from '../lib/secret-box.ts';
import { Admission, type Admitted, type BatchLine, type Worst } from './admission.ts';
import type { UsageSink } from './usage-sink.ts';
import { promptSize } from './tokens.ts';
import { checkContext, countingFor, measurePrompts, promptLimit, type Counting, type PromptTokens } from './context.ts';
import { checkRequestRules } from './request-rules.ts';
import { badRequest, modelNotFound, upstreamUnavailable, usageNotRecorded } from './errors.ts';
import { UpstreamRouter } from './upstreams/router.ts';
import { UpstreamHealthTracker } from './upstreams/health.ts';
import { isClientFault, UpstreamError, type Endpoint, type ModelBody, type StreamOutcome, type UpstreamRequest, type Usage } from './upstreams/upstream.ts';

type Body = ModelBody;
export type Chunk = Record<string, unknown>;

/** One model request: who calls, what, and a signal that fires when its caller is gone. */
export interface ModelCall {
  endpoint: Endpoint;
  principal: Principal;
  body: Body;
  signal?: AbortSignal | undefined;
  /** a line of a batch job: fixed request id, batch prices and token budget (admission.ts BatchLine) */
  batch?: BatchLine | undefined;
  /**
   * The Responses API request `body` was translated from: sent as it is when the model's
   * upstreams speak the Responses API (UpstreamRequest.native); `body` still decides the
   * rules, the context check and the worst case.
   */
  native?: Body | undefined;
}

/**
 * The answer: a whole body, or chunks (OpenAI's stream objects) whose iteration runs the
 * upstream. A failure before the first chunk throws from the first `next()`; a failure
 * later throws mid-iteration. Headers (rate limits) go with either.
 */
export type ModelAnswer =
  | { kind: 'json'; headers: Record<string, string>; body: Chunk; native?: boolean }
  | { kind: 'stream'; headers: Record<string, string>; chunks: AsyncIterable<Chunk>; native?: boolean };

/**
 * The worst case of a request, from its body and the model's context size: linear in the
 * body, never re-serializing it (lib/json-encode.ts jsonBytes). `measured`: the prompts'
 * exact counts under the model's named tokenizer, which then stand for the prompt instead of
 * its bytes (tools and an output schema still count by their bytes: how a template renders
 * them is its own).
 */
export function worstCase(endpoint: Endpoint, body: Body, contextSize: number, measured?: PromptTokens): Worst {
  if (endpoint === 'chat.completions' || endpoint === 'completions') {
    const prompt = endpoint === 'chat.completions' ? body.messages : body.prompt;
    const prompts = endpoint === 'completions' && Array.isArray(prompt) && prompt.length > 0 && typeof prompt[0] !== 'number' ? prompt.length : 1;
    // Tool definitions and an output schema reach the model as prompt text: they count in
    // the worst case (TPM and budget admission) as the messages do.
    const extras = endpoint === 'chat.completions' ? [body.tools, body.functions, body.response_format].filter((v) => v !== undefined) : [];
    const choices = prompts * Number(body.n ?? 1);
    const maxOut = Math.min(Number(body.max_completion_tokens ?? body.max_tokens ?? contextSize), contextSize);
    if (measured?.named && measured.exact) {
      const exact = measured.counts.reduce((a, b) => a + b, 0) + (extras.length ? promptSize(extras).bound : 0);
      return { promptTokens: Math.min(exact, contextSize * prompts), promptEstimate: exact, outputTokens: maxOut * choices };
    }
    const size = promptSize(extras.length ? [prompt, ...extras] : prompt);
    return { promptTokens: Math.min(size.bound, contextSize * prompts), promptEstimate: size.estimate, outputTokens: maxOut * choices };
  }
  const size = promptSize(endpoint === 'embeddings' ? body.input : [body.query, body.documents]);
  return { promptTokens: size.bound, promptEstimate: size.estimate, outputTokens: 0 };
}

export class Gateway {
  readonly admission: Admission;
  readonly spend: SpendAdmission;
  private readonly router: UpstreamRouter;
  /** How each model's upstream answers this replica (written to the store when it changes: the operator's view). */
  readonly upstreamHealth: UpstreamHealthTracker;
  readonly sink: UsageSink;
  private readonly ctx: Ctx;
  private readonly log: Logger;

  private readonly health: DependencyHealth;
  /** models whose stored upstream key was reported as not openable here */
  private readonly keysWarned = new Set<string>();
  /** tokenizer settings already reported as not loadable here (counting) */
  private readonly tokenizerWarned = new Set<string>();
  /** Model calls need Redis unless the operator lets them fail open. */
  private readonly needs: ('database' | 'redis')[];

  constructor(ctx: Ctx, spend: SpendAdmission, sink: UsageSink, config: GatewayConfig, log: Logger, health: DependencyHealth, redisFailOpen: boolean, secrets: SecretBox) {
    this.ctx = ctx;
    this.health = health;
    this.needs = redisFailOpen ? ['database'] : ['database', 'redis'];
    this.spend = spend;
    this.log = log;
    this.sink = sink;
    this.admission = new Admission(ctx, spend, config);
    this.upstreamHealth = new UpstreamHealthTracker(ctx, log);
    this.router = new UpstreamRouter(config, secrets, this.upstreamHealth, (model, err) => {
      if (this.keysWarned.has(model)) return;
      this.keysWarned.add(model);
      log.error({ err, model }, 'the model\'s stored upstream key cannot be opened with this secret key (GANTRY_SECRET_KEY or <dataDir>/secret.key): it is called without it until the key is set again');
    });
  }

  async listModels(p: Principal) {
    return { object: 'list' as const, data: (await this.admission.visibleModels(p)).map(modelRecord) };
  }

  async getModel(p: Principal, id: string) {
    const m = (await this.admission.visibleModels(p)).find((x) => x.id === id);
    if (!m) throw modelNotFound(`model ${id} does not exist or is not available to this API key`, id);
    return modelRecord(m);
  }

  /** Whether the model's upstreams take Responses API requests as they are (ModelCall.native). */
  async speaksResponses(modelId: string): Promise<boolean> {
    const m = await this.admission.model(modelId);
    return m !== undefined && this.router.speaksResponses(m.upstream);
  }

  /** Admit and serve one model request. */
  async run(call: ModelCall): Promise<ModelAnswer> {
    this.health.require(...this.needs); // refused at once while a dependency is down: never queued, never admitted later
    const { endpoint, body } = call;
    checkRequestRules(endpoint, body); // 400 before anything is counted, whatever the upstream
    const modelId = String(body.model);
    if (endpoint === 'completions' && body.max_tokens === undefined) body.max_tokens = 16; // OpenAI's default for legacy completions
    let measured: PromptTokens | undefined;
    const adm = await this.admission.admit(call.principal, endpoint, modelId, async (model) => {
      measured = await measurePrompts(endpoint, body, await this.counting(model.upstream), promptLimit(body, model.contextSize));
      checkContext(endpoint, body, measured, model.contextSize); // 400 before any upstream call
      return worstCase(endpoint, body, model.contextSize, measured);
    }, call.batch);
    const started = performance.now();
    const ac = new AbortController();
    if (call.signal) {
      if (call.signal.aborted) ac.abort(call.signal.reason);
      else call.signal.addEventListener('abort', () => ac.abort(call.signal!.reason), { once: true });
    }
    const req: UpstreamRequest = {
      endpoint, body, modelId, contextSize: adm.model.contextSize, requestId: adm.requestId.slice(4),
      createdS: Math.floor(this.ctx.clock.nowMs() / 1000), signal: ac.signal,
      ...(measured?.simulator ? { promptTokens: measured.counts } : {}),
      ...(call.native && this.router.speaksResponses(adm.model.upstream) ? { native: call.native } : {}),
    };
    // the answer is in the Responses shapes (the upstream's own) rather than chat's
    const native = req.native ? { native: true } : {};
    if (body.stream === true && (endpoint === 'chat.completions' || endpoint === 'completions')) {
      return { kind: 'stream', headers: adm.headers, chunks: this.stream(adm, req, ac, started), ...native };
    }
    let result: { body: Chunk; usage: Usage };
    try {
      result = await this.router.call(adm.model, req);
    } catch (e) {
      await this.release(adm);
      throw this.upstreamFailure(e, adm);
    }
    await this.settle(adm, result.usage, 'completed', started);
    return { kind: 'json', headers: adm.headers, body: result.body, ...native };
  }

  /**
   * The upstream pushes chunks; the consumer pulls them. Whichever way it ends — done,
   * failed, or the consumer gone (return() or the caller's signal) — what was produced is
   * settled exactly once before the iteration completes.
   */
  private async *stream(adm: Admitted, req: UpstreamRequest, ac: AbortController, started: number): AsyncGenerator<Chunk> {
    const queue: Chunk[] = [];
    let head = 0;
    let wake: (() => void) | undefined;
    let outcome: StreamOutcome | undefined;
    let failure: unknown;
    let ended = false;
    const running = this.router.stream(adm.model, req, (c) => {
      queue.push(c);
      wake?.();
    }).then((o) => { outcome = o; }, (e) => { failure = e; }).finally(() => {
      ended = true;
      wake?.();
    });
    let consumerGone = true; // until the loop below finishes by itself
    // OpenAI: with include_usage every chunk before the usage chunk carries `usage: null`
    const usageNull = !req.native && req.body.stream_options?.include_usage === true;
    try {
      for (;;) {
        if (head < queue.length) {
          const c = queue[head]!;
          queue[head++] = undefined as unknown as Chunk; // let it go
          if (usageNull) c.usage = null;
          yield c;
          continue;
        }
        if (ended) break;
        await new Promise<void>((r) => { wake = r; });
        wake = undefined;
      }
      consumerGone = false;
    } finally {
      if (consumerGone) {
        // The consumer stopped pulling: stop the upstream and bill what it produced.
        ac.abort(new Error('the caller stopped reading the stream'));
        await running;
        if (outcome) await this.settle(adm, outcome.usage, 'client_cancelled', started).catch((e) => this.log.error({ err: e }, 'settling a cancelled stream failed'));
        else await this.release(adm);
      }
    }
    if (failure !== undefined) {
      await this.release(adm);
      throw this.upstreamFailure(failure, adm);
    }
    const out = outcome!;
    await this.settle(adm, out.usage, out.finished ? 'completed' : 'client_cancelled', started);
    if (out.finished && usageNull) {
      const chat = req.endpoint === 'chat.completions';
      yield {
        id: `${chat ? 'chatcmpl' : 'cmpl'}-${req.requestId}`, object: chat ? 'chat.completion.chunk' : 'text_completion',
        created: req.createdS, model: req.modelId, choices: [], usage: usageBody(out.usage),
      };
    }
  }

  /**
   * How the model's prompts are counted. A named tokenizer this host cannot load (a file
   * saved on another replica's disk only) falls back to the lower bound, said once in the log.
   */
  private async counting(upstream: unknown): Promise<Counting> {
    try {
      return await countingFor(upstream);
    } catch (e) {
      const spec = String(upstreamTokenizer(upstream));
      if (!this.tokenizerWarned.has(spec)) {
        this.tokenizerWarned.add(spec);
        this.log.warn({ err: e, tokenizer: spec }, 'the model\'s tokenizer cannot be loaded here: its prompts are counted by the lower bound');
      }
      return 'bound';
    }
  }

  private upstreamFailure(e: unknown, adm: Admitted): AppError {
    if (e instanceof AppError) return e;
    // Only a refusal of the request itself is the client's to fix; an upstream that refuses
    // our credential (401/403), does not know the model name (404) or is overloaded (429)
    // is an upstream failure, like a 5xx.
    if (e instanceof UpstreamError && e.status !== undefined && isClientFault(e)) {
      return badRequest(e.message, { model: adm.model.id, upstreamStatus: e.status }, adm.headers);
    }
    this.log.warn({ err: e, model: adm.model.id, requestId: adm.requestId }, 'upstream failed');
    return upstreamUnavailable(adm.model.id, adm.headers);
  }

  /** Upstream failed: give back the reservation and the counted tokens. */
  private async release(adm: Admitted): Promise<void> {
    await this.spend.settle(adm.reservation, 0n, 0)
      .catch((e) => this.log.error({ err: e }, 'releasing a reservation failed; its lease will expire'));
  }

  private async settle(adm: Admitted, usage: Usage, outcome: UsageRecord['outcome'], started: number): Promise<void> {
    const p = adm.principal;
    const rec: UsageRecord = {
      requestId: adm.requestId, teamId: p.teamId, memberId: p.memberId, keyId: p.keyId, model: adm.model.id,
      endpoint: adm.endpoint, promptTokens: usage.promptTokens, completionTokens: usage.completionTokens,
      inputPricePerMUnits: adm.prices.inputPricePerMUnits, outputPricePerMUnits: adm.prices.outputPricePerMUnits,
      ...(usage.cachedTokens ? { cachedTokens: usage.cachedTokens, cachedInputPricePerMUnits: adm.prices.cachedInputPricePerMUnits } : {}),
      ...(usage.reasoningTokens ? { reasoningTokens: usage.reasoningTokens } : {}),
      outcome, durationMs: performance.now() - started, atMs: this.ctx.clock.nowMs(), ...(adm.batch ? { billing: 'batch' as const } : {}),
    };
    const cost = usageCostMicro(rec);
    try {
      await this.sink.record(rec); // durable from here on: journaled, or event + ledger charge committed
    } catch (e) {
      await this.release(adm);
      if (isDatabaseUnreachable(e)) {
        this.health.down('database', e);
        throw dependencyRefusal('database');
      }
      this.log.error({ err: e, requestId: adm.requestId }, 'recording usage failed');
      throw usageNotRecorded();
    }
    if (cost > adm.reservedMicro) this.log.warn({ requestId: adm.requestId, cost: String(cost), reserved: String(adm.reservedMicro) }, 'upstream usage exceeded the reserved worst case');
    // The counters are settled without holding the response: the usage is durable already,
    // and until the settlement lands the reservation (≥ the cost) still stands, so nothing can
    // be overspent meanwhile. In process it is done before this returns; on Redis the command
    // is queued on the replica's one connection before the response is written, and Redis runs
    // a connection's commands in order, so the client's next request to this replica is
    // admitted after it. (One round trip less per request on the replica setup.)
    void this.spend.settle(adm.reservation, cost, usage.promptTokens + usage.completionTokens)
      .catch((e) => this.log.error({ err: e }, 'settling counters failed; state reloads after its TTL'));
  }

  async close(): Promise<void> {
    await this.sink.close();
    await this.upstreamHealth.settled();
    await this.router.close();
  }
}

/** The stream's usage chunk: the upstream's own usage object (details included) when it sent one. */
function usageBody(u: Usage) {
  return { ...u.reported, prompt_tokens: u.promptTokens, completion_tokens: u.completionTokens, total_tokens: u.promptTokens + u.completionTokens };
}
