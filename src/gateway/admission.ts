// Admission, in the order of the issue, before any upstream is called: (auth happened in the
// HTTP layer) → model exists and is available → key policy → team's enabled models →
// RPM/TPM per account and model at the account's tier → budget reservation in the key
// budget, the member budget and the account balance, all at once. Reads only memory and
// the shared counters; the store is read when a cache entry is older than its TTL.
import type { GatewayConfig } from '../config.ts';
import type { Ctx } from '../domain/context.ts';
import type { Principal } from '../domain/roles.ts';
import { AppError } from '../lib/errors.ts';
import { newId } from '../lib/ids.ts';
import { microToUnits } from '../lib/money.ts';
import { policyAllows } from '../domain/policy/policy.ts';
import { isEnabledForTeam } from '../domain/models/models.ts';
import {
  loadBudgetSetting, loadCatalogue, loadKeyPolicy, loadScopeBase, loadTeamLimits,
  type BudgetRow, type ModelRow, type Policy, type TeamLimits,
} from '../domain/usage/snapshot.ts';
import { keyScope, memberScope, teamScope, type Counters, type RateView } from './counters/counters.ts';
import { rateLimitHeaders } from './rate-headers.ts';
import { TtlCache } from '../lib/ttl-cache.ts';
import type { Endpoint } from './upstreams/upstream.ts';
import type { UsageSink } from './usage-sink.ts';

const WINDOW_MS = 60_000;

/** What a request may cost at most, from the body alone. */
export interface Worst {
  promptTokens: number; // upper bound (see tokens.ts)
  promptEstimate: number; // counted against TPM
  outputTokens: number; // upper bound
}

export interface Admitted {
  requestId: string;
  principal: Principal;
  model: ModelRow;
  endpoint: Endpoint;
  rateKey: string;
  scopes: string[];
  reservedMicro: bigint;
  headers: Record<string, string>;
}

export class Admission {
  private readonly ctx: Ctx;
  private readonly counters: Counters;
  private readonly config: GatewayConfig;
  private readonly catalogue: TtlCache<Map<string, ModelRow>>;
  private readonly policies: TtlCache<Policy>;
  private readonly teams: TtlCache<TeamLimits>;
  readonly budgets: TtlCache<BudgetRow | null>;
  private readonly sink: UsageSink;

  constructor(ctx: Ctx, counters: Counters, config: GatewayConfig, sink: UsageSink) {
    this.ctx = ctx;
    this.sink = sink;
    this.counters = counters;
    this.config = config;
    const ttl = config.hotCacheTtlMs;
    this.catalogue = new TtlCache(ttl);
    this.policies = new TtlCache(ttl);
    this.teams = new TtlCache(ttl);
    this.budgets = new TtlCache(ttl);
  }

  private async models(): Promise<Map<string, ModelRow>> {
    return this.catalogue.get('all', () => loadCatalogue(this.ctx));
  }

  /** The whole catalogue (cached), for sizing a request before it is admitted. */
  async catalogueById(): Promise<Map<string, ModelRow>> {
    return this.models();
  }

  /** Models the key may call: available, inside its policy, enabled for its team. */
  async visibleModels(p: Principal): Promise<ModelRow[]> {
    const [models, policy, team] = await Promise.all([this.models(), this.policies.get(p.keyId, () => loadKeyPolicy(this.ctx, p.keyId)), this.teams.get(p.teamId, () => loadTeamLimits(this.ctx, p.teamId))]);
    return [...models.values()].filter((m) => m.status === 'available' && policyAllows(policy, m.id) && !!team.team && isEnabledForTeam(team.team, m.id));
  }

  async admit(p: Principal, endpoint: Endpoint, modelId: string, worst: Worst): Promise<Admitted> {
    const model = (await this.models()).get(modelId);
    if (!model || model.status !== 'available') {
      throw new AppError('MODEL_NOT_FOUND', `model ${modelId} does not exist or is not available`, { model: modelId });
    }
    const policy = await this.policies.get(p.keyId, () => loadKeyPolicy(this.ctx, p.keyId));
    if (!policyAllows(policy, modelId)) {
      throw new AppError('ACCESS_DENY', `the API key is not allowed to use model ${modelId}`, { model: modelId, keyId: p.keyId });
    }
    const team = await this.teams.get(p.teamId, () => loadTeamLimits(this.ctx, p.teamId));
    if (!team.team || !isEnabledForTeam(team.team, modelId)) {
      throw new AppError('ACCESS_DENY', `model ${modelId} is not enabled for this account`, { model: modelId, rule: 'team enabled models' });
    }
    const limits = team.limits.get(modelId) ?? { rpm: null, tpm: null };
    const [keyBudget, memberBudget] = await Promise.all([
      this.budgets.get(`key:${p.keyId}`, () => loadBudgetSetting(this.ctx, 'key', p.keyId)),
      this.budgets.get(`member:${p.memberId}`, () => loadBudgetSetting(this.ctx, 'member', p.memberId)),
    ]);
    // Refusals are reported in this order: key budget, member budget, balance.
    const scopes: string[] = [];
    if (keyBudget) scopes.push(keyScope(p.keyId));
    if (memberBudget) scopes.push(memberScope(p.memberId));
    scopes.push(teamScope(p.teamId));
    const costMicro = BigInt(worst.promptTokens) * model.inputPricePerMUnits + BigInt(worst.outputTokens) * model.outputPricePerMUnits;
    const countedTokens = worst.promptEstimate + worst.outputTokens;
    const requestId = newId('request', this.ctx.clock.nowMs());
    const rateKey = `${p.teamId}:${modelId}`;
    for (let attempt = 0; ; attempt++) {
      const wallMs = Date.now();
      const r = await this.counters.admit({
        requestId, nowMs: this.ctx.clock.nowMs(), wallMs,
        rate: { key: rateKey, rpmLimit: limits.rpm, tpmLimit: limits.tpm, tokens: countedTokens, windowMs: WINDOW_MS },
        scopes, costMicro, leaseUntilMs: wallMs + 2 * this.config.upstreamTimeoutMs + 60_000, stateTtlMs: this.config.budgetStateTtlMs,
      });
      if (r.kind === 'load') {
        if (attempt >= 5) throw new AppError('SERVICE_NOT_AVAILABLE', 'budget state is changing too fast to admit the request; retry');
        await Promise.all(r.scopes.map((s) => this.loadScope(p.teamId, s)));
        continue;
      }
      const headers = rateLimitHeaders(limits, r.rate);
      if (r.kind === 'ok') return { requestId, principal: p, model, endpoint, rateKey, scopes, reservedMicro: costMicro, headers };
      if (r.kind === 'budget') throw this.budgetError(r.scope, r.availableMicro, costMicro, headers);
      throw this.rateError(r.kind, modelId, limits, r.rate, r.retryAfterMs, countedTokens, headers);
    }
  }

  private async loadScope(teamId: string, scope: string): Promise<void> {
    const gen = await this.counters.generation(scope);
    // Every settlement the counters have seen must be in the ledger read below, or base
    // would miss it (see the loading protocol in counters.ts).
    await this.sink.settled();
    const base = await loadScopeBase(this.ctx, teamId, scope);
    await this.counters.load(scope, gen, base, Date.now(), this.config.budgetStateTtlMs);
  }

  private rateError(kind: 'rpm' | 'tpm', model: string, limits: { rpm: number | null; tpm: number | null }, v: RateView, retryAfterMs: number, tokens: number, headers: Record<string, string>): AppError {
    const h = { ...headers, 'retry-after': String(Math.max(1, Math.ceil(retryAfterMs / 1000))), 'retry-after-ms': String(Math.max(0, Math.ceil(retryAfterMs))) };
    if (kind === 'rpm') {
      return new AppError('RATE_LIMIT_EXCEEDED', `rate limit reached for ${model}: ${limits.rpm} requests per minute; retry after ${h['retry-after']} s`, {
        model, quotaType: 'RPM', limit: limits.rpm, used: v.requests, retryAfterMs: Math.ceil(retryAfterMs),
      }, h);
    }
    return new AppError('TOKEN_LIMIT_EXCEEDED', `token rate limit reached for ${model}: ${limits.tpm} tokens per minute, ${v.tokens} used, this request counts ${tokens} (prompt estimate + max output); retry after ${h['retry-after']} s`, {
      model, quotaType: 'TPM', limit: limits.tpm, used: v.tokens, requested: tokens, retryAfterMs: Math.ceil(retryAfterMs),
    }, h);
  }

  private budgetError(scope: string, availableMicro: bigint, costMicro: bigint, headers: Record<string, string>): AppError {
    const kind = scope.slice(0, 1);
    const id = scope.slice(2);
    const remaining = Number(microToUnits(availableMicro));
    const required = Number(microToUnits(costMicro));
    const meta = { remaining, required, remainingMicro: availableMicro.toString(), requiredMicro: costMicro.toString() };
    if (kind === 't') {
      return new AppError('NOT_ENOUGH_BALANCE', `the account balance cannot cover this request: ${remaining} units available, up to ${required} units needed`, {
        scope: 'balance', userId: id, ...meta,
      }, headers);
    }
    const what = kind === 'k' ? 'key' : 'member';
    return new AppError('BUDGET_EXCEEDED', `the ${what} budget cannot cover this request: ${remaining} units remain, up to ${required} units needed`, {
      scope: what, ...(kind === 'k' ? { keyId: id } : { memberId: id }), ...meta,
    }, headers);
  }
}
