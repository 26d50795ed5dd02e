// Admission of a model request, in the order of the issue, before any upstream is called:
// (auth happened in the HTTP layer) → model exists and is available → key policy → the key's
// member's policy → team's enabled models → the request measured against the model (the
// context rule, context.ts) → RPM/TPM per account and model at the account's tier, and the
// budget reservation in the key budget, the member budget and the account balance, all in
// one atomic step of the spend admission (domain/spend/admission.ts). Reads only memory and
// the shared counters; the store is read when a cache entry is missing (changes clear them).
import type { GatewayConfig } from '../config.ts';
import type { Ctx } from '../domain/context.ts';
import type { Principal } from '../domain/roles.ts';
import type { AppError } from '../lib/errors.ts';
import { newId } from '../lib/ids.ts';
import { policyAllows } from '../domain/policy/policy.ts';
import { isEnabledForTeam } from '../domain/models/models.ts';
import { loadCatalogue, loadKeyPolicy, loadMemberPolicy, loadTeamLimits, type ModelRow, type Policy, type TeamLimits } from '../domain/usage/snapshot.ts';
import type { Reservation, SpendAdmission } from '../domain/spend/admission.ts';
import { spendRefusal } from '../domain/spend/errors.ts';
import type { RateView } from '../domain/spend/counters.ts';
import { rateLimitHeaders } from './rate-headers.ts';
import { modelDenied, modelNotFound, requestRateLimited, tokenRateLimited } from './errors.ts';
import { TtlCache } from '../lib/ttl-cache.ts';
import type { Endpoint } from './upstreams/upstream.ts';

const WINDOW_MS = 60_000;

/** What a request may cost at most, from the body alone. */
export interface Worst {
  promptTokens: number; // upper bound (see tokens.ts)
  promptEstimate: number; // counted against TPM
  outputTokens: number; // upper bound
}

/**
 * A line of a batch (domain/batches): its request id is fixed by the line (a line run again
 * after a crash is recorded once), it is billed at the model's batch prices, and it counts
 * against the batch token budget (`GANTRY_BATCH_TPM` per account and model), never against
 * the interactive RPM/TPM: a batch cannot starve the account's interactive traffic.
 */
export interface BatchLine {
  requestId: string;
}

/** What a request is billed per million tokens, in units. */
export interface Prices {
  inputPricePerMUnits: bigint;
  outputPricePerMUnits: bigint;
  /** prompt tokens the upstream served from its cache */
  cachedInputPricePerMUnits: bigint;
}

/** Interactive prices: the cached input price defaults to the input price. */
export function interactivePrices(m: ModelRow): Prices {
  return {
    inputPricePerMUnits: m.inputPricePerMUnits, outputPricePerMUnits: m.outputPricePerMUnits,
    cachedInputPricePerMUnits: m.cachedInputPricePerMUnits ?? m.inputPricePerMUnits,
  };
}

/**
 * The Batch API price of a model: the operator's, or half the interactive price (rounded
 * down). Cached prompt tokens: half the interactive cached price, never above the batch input price.
 */
export function batchPrices(m: ModelRow): Prices {
  const input = m.batchInputPricePerMUnits ?? m.inputPricePerMUnits / 2n;
  const cachedHalf = (m.cachedInputPricePerMUnits ?? m.inputPricePerMUnits) / 2n;
  return {
    inputPricePerMUnits: input,
    outputPricePerMUnits: m.batchOutputPricePerMUnits ?? m.outputPricePerMUnits / 2n,
    cachedInputPricePerMUnits: cachedHalf < input ? cachedHalf : input,
  };
}

export interface Admitted {
  requestId: string;
  /** set for a batch line: billed as Batch API usage */
  batch: boolean;
  prices: Prices;
  principal: Principal;
  model: ModelRow;
  endpoint: Endpoint;
  reservation: Reservation;
  reservedMicro: bigint;
  headers: Record<string, string>;
}

export class Admission {
  private readonly ctx: Ctx;
  private readonly spend: SpendAdmission;
  private readonly config: GatewayConfig;
  private readonly catalogue: TtlCache<Map<string, ModelRow>>;
  private readonly policies: TtlCache<Policy>;
  /** by member id; null: the member has no policy of its own */
  private readonly memberPolicies: TtlCache<Policy | null>;
  private readonly teams: TtlCache<TeamLimits>;

  constructor(ctx: Ctx, spend: SpendAdmission, config: GatewayConfig) {
    this.ctx = ctx;
    this.spend = spend;
    this.config = config;
    const ttl = config.hotCacheTtlMs;
    this.catalogue = new TtlCache(ttl);
    this.policies = new TtlCache(ttl);
    this.memberPolicies = new TtlCache(ttl);
    this.teams = new TtlCache(ttl);
    ctx.changes.subscribe('catalogue.changed', () => {
      this.catalogue.clear();
      this.teams.clear(); // limits derive from the quota definitions
    });
    ctx.changes.subscribe('policy.changed', (c) => this.policies.delete(c.keyId));
    ctx.changes.subscribe('member.policy.changed', (c) => this.memberPolicies.delete(c.memberId));
    ctx.changes.subscribe('team.changed', (c) => this.teams.delete(c.teamId));
    ctx.changes.onResync(() => {
      this.catalogue.clear();
      this.policies.clear();
      this.memberPolicies.clear();
      this.teams.clear();
    });
  }

  private async models(): Promise<Map<string, ModelRow>> {
    return this.catalogue.get('all', () => loadCatalogue(this.ctx));
  }

  /** A catalogue row by id (cached), or undefined; no access check (admit() does them). */
  async model(id: string): Promise<ModelRow | undefined> {
    return (await this.models()).get(id);
  }

  private keyPolicy(p: Principal): Policy | Promise<Policy> {
    return this.policies.get(p.keyId, () => loadKeyPolicy(this.ctx, p.keyId));
  }

  private memberPolicy(p: Principal): Policy | null | Promise<Policy | null> {
    return this.memberPolicies.get(p.memberId, () => loadMemberPolicy(this.ctx, p.memberId));
  }

  /** Models the key may call: available, inside its policy and its member's, enabled for its team. */
  async visibleModels(p: Principal): Promise<ModelRow[]> {
    const [models, policy, memberPolicy, team] = await Promise.all([this.models(), this.keyPolicy(p), this.memberPolicy(p), this.teams.get(p.teamId, () => loadTeamLimits(this.ctx, p.teamId))]);
    return [...models.values()].filter((m) => m.status === 'available' && policyAllows(policy, m.id) && (!memberPolicy || policyAllows(memberPolicy, m.id)) && !!team.team && isEnabledForTeam(team.team, m.id));
  }

  /**
   * `measure` sizes the request against the model once access is granted: it may refuse it
   * (the context rule), before any rate or budget is counted.
   */
  async admit(p: Principal, endpoint: Endpoint, modelId: string, measure: (model: ModelRow) => Worst | Promise<Worst>, batch?: BatchLine): Promise<Admitted> {
    const model = (await this.models()).get(modelId);
    if (model?.status !== 'available') {
      throw modelNotFound(`model ${modelId} does not exist or is not available`, modelId);
    }
    const policy = await this.keyPolicy(p);
    if (!policyAllows(policy, modelId)) {
      throw modelDenied(`the API key is not allowed to use model ${modelId}`, { model: modelId, keyId: p.keyId });
    }
    const memberPolicy = await this.memberPolicy(p);
    if (memberPolicy && !policyAllows(memberPolicy, modelId)) {
      throw modelDenied(`the API key's member is not allowed to use model ${modelId}`, { model: modelId, memberId: p.memberId, rule: 'member policy' });
    }
    const team = await this.teams.get(p.teamId, () => loadTeamLimits(this.ctx, p.teamId));
    if (!team.team || !isEnabledForTeam(team.team, modelId)) {
      throw modelDenied(`model ${modelId} is not enabled for this account`, { model: modelId, rule: 'team enabled models' });
    }
    const worst = await measure(model);
    const limits = batch ? { rpm: null, tpm: this.config.batchTpm } : (team.limits.get(modelId) ?? { rpm: null, tpm: null });
    const prices = batch ? batchPrices(model) : interactivePrices(model);
    // The worst case prices every prompt token at the dearer of the input and cached prices:
    // how much of the prompt the upstream will serve from its cache is known only afterwards.
    // biome-ignore lint/complexity/useMathMinMax: bigints (Math.max takes numbers)
    const promptPrice = prices.cachedInputPricePerMUnits > prices.inputPricePerMUnits ? prices.cachedInputPricePerMUnits : prices.inputPricePerMUnits;
    const costMicro = BigInt(worst.promptTokens) * promptPrice + BigInt(worst.outputTokens) * prices.outputPricePerMUnits;
    const countedTokens = worst.promptEstimate + worst.outputTokens;
    const requestId = batch?.requestId ?? newId('request', this.ctx.clock.nowMs());
    const r = await this.spend.admit({
      payer: p, costMicro, requestId, leaseMs: 2 * this.config.upstreamTimeoutMs + 60_000,
      rate: { key: `${batch ? 'batch:' : ''}${p.teamId}:${modelId}`, rpmLimit: limits.rpm, tpmLimit: limits.tpm, tokens: countedTokens, windowMs: WINDOW_MS },
    });
    const headers = rateLimitHeaders(limits, r.rate);
    if (r.kind === 'ok') {
      return {
        requestId, batch: !!batch, prices,
        principal: p, model, endpoint, reservation: r.reservation, reservedMicro: costMicro, headers,
      };
    }
    if (r.kind === 'budget') throw spendRefusal(r.scope, r.availableMicro, costMicro, 'this request (its worst case)', headers);
    throw this.rateError(r.kind, modelId, limits, r.rate, r.retryAfterMs, countedTokens, headers);
  }

  private rateError(kind: 'rpm' | 'tpm', model: string, limits: { rpm: number | null; tpm: number | null }, v: RateView, retryAfterMs: number, tokens: number, headers: Record<string, string>): AppError {
    const h = { ...headers, 'retry-after': String(Math.max(1, Math.ceil(retryAfterMs / 1000))), 'retry-after-ms': String(Math.max(0, Math.ceil(retryAfterMs))) };
    if (kind === 'rpm') {
      return requestRateLimited(`rate limit reached for ${model}: ${limits.rpm} requests per minute; retry after ${h['retry-after']} s`, {
        model, quotaType: 'RPM', limit: limits.rpm, used: v.requests, retryAfterMs: Math.ceil(retryAfterMs),
      }, h);
    }
    return tokenRateLimited(`token rate limit reached for ${model}: ${limits.tpm} tokens per minute, ${v.tokens} used, this request counts ${tokens} (prompt estimate + max output); retry after ${h['retry-after']} s`, {
      model, quotaType: 'TPM', limit: limits.tpm, used: v.tokens, requested: tokens, retryAfterMs: Math.ceil(retryAfterMs),
    }, h);
  }
}
