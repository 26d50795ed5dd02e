// The one admission for everything that commits money: model calls, GPU instances (first
// hour, or a whole term), and whatever a new product adds. It reserves the worst case
// atomically in the key budget, the member budget and the account's spendable balance
// (the shared counters: in process, or Redis across replicas); the first that cannot cover
// it refuses, naming the limit and what is left. A reservation is a short lease: the work
// commits its charge (or a hold) and then settles or releases it.
import type { Ctx } from '../context.ts';
import type { Payer, BudgetScope } from './scopes.ts';
import { keyScope, memberScope, teamScope } from './scopes.ts';
import type { Counters, RateCheck, RateView } from './counters.ts';
import { scopeBaseMicro } from './base.ts';
import { newId } from '../../lib/ids.ts';
import { TtlCache } from '../../lib/ttl-cache.ts';
import { loadingOutpaced, spendRefusal, unexpectedRateRefusal } from './errors.ts';
import { findBudget, type BudgetRow } from '../../store/budgets.ts';

export interface SpendOptions {
  /** how long a replica trusts loaded budget/balance state before re-reading the store */
  stateTtlMs: number;
  /** how long budget settings (which scopes have a limit) are cached; changes clear them at once */
  settingsTtlMs: number;
}

export interface SpendRequest {
  payer: Payer;
  costMicro: bigint;
  /** how long the reservation lives if its holder dies before settling */
  leaseMs: number;
  requestId?: string | undefined;
  /** model calls: RPM/TPM, counted in the same atomic step */
  rate?: RateCheck | undefined;
}

export interface Reservation {
  requestId: string;
  scopes: BudgetScope[];
  costMicro: bigint;
  rateKey: string | undefined;
}

export type SpendOutcome =
  | { kind: 'ok'; reservation: Reservation; rate: RateView }
  | { kind: 'rpm' | 'tpm'; rate: RateView; retryAfterMs: number }
  | { kind: 'budget'; scope: BudgetScope; availableMicro: bigint; rate: RateView };

/** A refusing scope is read again from the store at most this often (bounds double counting, and the store's load). */
const RECHECK_EVERY_MS = 1000;
/** Rounds of "load the state, try again" before a request is refused as 503. */
const MAX_LOAD_ROUNDS = 10;

/** Waits until every charge the counters have seen is in the store (the usage journal). */
export type StoreBarrier = () => Promise<void> | undefined;

export class SpendAdmission {
  private readonly ctx: Ctx;
  readonly counters: Counters;
  private readonly opts: SpendOptions;
  private readonly barrier: StoreBarrier;
  private readonly settings: TtlCache<BudgetRow | null>;
  private failures = 0;
  /** When each scope's state was last read again because it refused (wall ms). */
  private readonly recheckedAt = new Map<string, number>();
  /** Loads of a scope's state in flight: requests that find it missing at once share one read. */
  private readonly loading = new Map<string, Promise<void>>();

  constructor(ctx: Ctx, counters: Counters, opts: SpendOptions, barrier: StoreBarrier) {
    this.ctx = ctx;
    this.counters = counters;
    this.opts = opts;
    this.barrier = barrier;
    this.settings = new TtlCache(opts.settingsTtlMs);
    ctx.changes.subscribe('money.moved', (c) => this.applied(this.counters.applyPosted(c.deltas)));
    ctx.changes.subscribe('budget.changed', (c) => {
      this.settings.delete(settingKey(c.scope));
      this.applied(this.counters.invalidate(c.scope));
    });
    // credit limit, suspension: the team's spendable balance is read again
    ctx.changes.subscribe('team.changed', (c) => this.applied(this.counters.invalidate(teamScope(c.teamId))));
    ctx.changes.onResync(() => this.settings.clear());
  }

  /** Counter updates are fire-and-forget; one that fails is corrected when the state is reloaded (stateTtlMs). */
  private applied(p: Promise<void>): void {
    p.catch(() => {
      this.failures++;
    });
  }

  /** Counter updates that failed (reported in /metrics); the state reloads within stateTtlMs. */
  get counterFailures(): number {
    return this.failures;
  }

  /** The scopes a payer's spend counts against, in the order their refusal is reported. */
  async scopesOf(payer: Payer): Promise<BudgetScope[]> {
    const [keyBudget, memberBudget] = await Promise.all([
      payer.keyId ? this.setting(keyScope(payer.keyId)) : null,
      payer.memberId ? this.setting(memberScope(payer.memberId)) : null,
    ]);
    const scopes: BudgetScope[] = [];
    if (keyBudget && payer.keyId) scopes.push(keyScope(payer.keyId));
    if (memberBudget && payer.memberId) scopes.push(memberScope(payer.memberId));
    scopes.push(teamScope(payer.teamId));
    return scopes;
  }

  private setting(scope: BudgetScope): BudgetRow | null | Promise<BudgetRow | null> {
    return this.settings.get(settingKey(scope), async () => (await findBudget(this.ctx.db, scope.kind as 'key' | 'member', scope.id)) ?? null);
  }

  /** Reserve `costMicro` (and count the rate) or say which limit refused. */
  async admit(req: SpendRequest, scopes?: BudgetScope[]): Promise<SpendOutcome> {
    const sc = scopes ?? await this.scopesOf(req.payer);
    const requestId = req.requestId ?? newId('request', this.ctx.clock.nowMs());
    let rechecked = false;
    for (let attempt = 0; ; attempt++) {
      const wallMs = Date.now();
      const r = await this.counters.admit({
        requestId, nowMs: this.ctx.clock.nowMs(), wallMs, rate: req.rate, scopes: sc, costMicro: req.costMicro,
        leaseUntilMs: wallMs + req.leaseMs, stateTtlMs: this.opts.stateTtlMs,
      });
      if (r.kind === 'load') {
        // Each round loads what is missing (shared with every request waiting on the same
        // scope); another round is needed only when a change invalidated it meanwhile.
        if (attempt >= MAX_LOAD_ROUNDS) throw loadingOutpaced();
        await Promise.all(r.scopes.map((s) => this.loadScope(req.payer.teamId, s)));
        continue;
      }
      if (r.kind === 'ok') return { kind: 'ok', reservation: { requestId, scopes: sc, costMicro: req.costMicro, rateKey: req.rate?.key }, rate: r.rate };
      if (r.kind === 'budget' && !rechecked && this.mayRecheck(r.scope, wallMs)) {
        // A refusal is checked against the store before it is given: a charge settled while
        // the state was being loaded can be counted twice (counters.ts), and that must not
        // refuse what the budget can pay for for more than a second.
        rechecked = true;
        await this.counters.invalidate(r.scope);
        continue;
      }
      return r;
    }
  }

  private mayRecheck(scope: BudgetScope, wallMs: number): boolean {
    const k = settingKey(scope);
    if (wallMs - (this.recheckedAt.get(k) ?? 0) < RECHECK_EVERY_MS) return false;
    if (this.recheckedAt.size > 10_000) this.recheckedAt.clear();
    this.recheckedAt.set(k, wallMs);
    return true;
  }

  /** Reserve or throw the refusal (spend without a rate: GPU time, subscription terms). */
  async reserve(payer: Payer, costMicro: bigint, what: string, leaseMs = 120_000): Promise<Reservation> {
    const r = await this.admit({ payer, costMicro, leaseMs });
    if (r.kind === 'ok') return r.reservation;
    if (r.kind === 'budget') throw spendRefusal(r.scope, r.availableMicro, costMicro, what);
    throw unexpectedRateRefusal();
  }

  /**
   * Reserve, run `commit` (which writes the charge or hold and announces it on commit), then
   * give the reservation back: the committed money now counts in its place.
   */
  async withReservation<T>(payer: Payer, costMicro: bigint, what: string, commit: () => Promise<T>): Promise<T> {
    if (costMicro <= 0n) return commit();
    const res = await this.reserve(payer, costMicro, what);
    try {
      return await commit();
    } finally {
      await this.release(res);
    }
  }

  /** The work is done: its charge of `actualMicro` is in the store; the rest of the reservation goes back. */
  settle(res: Reservation, actualMicro: bigint, tokensUsed?: number): Promise<void> {
    return this.counters.settle({
      requestId: res.requestId, scopes: res.scopes, actualMicro,
      rate: res.rateKey !== undefined ? { key: res.rateKey, tokensUsed: tokensUsed ?? 0 } : undefined,
    });
  }

  /** Nothing was spent (or what was is announced by its own change): give it all back. */
  release(res: Reservation): Promise<void> {
    return this.settle(res, 0n);
  }

  /** Live reservations of a scope (the balance's pending charges show the team's). */
  reservedMicro(scope: BudgetScope): Promise<bigint> {
    return this.counters.reservedMicro(scope, Date.now());
  }

  private loadScope(teamId: string, scope: BudgetScope): Promise<void> {
    const k = settingKey(scope);
    let p = this.loading.get(k);
    if (!p) {
      p = this.readScope(teamId, scope).finally(() => this.loading.delete(k));
      this.loading.set(k, p);
    }
    return p;
  }

  private async readScope(teamId: string, scope: BudgetScope): Promise<void> {
    const gen = await this.counters.generation(scope);
    // Every settlement the counters have seen must be in the store read below, or base
    // would miss it (see the loading protocol in counters.ts).
    await this.barrier();
    const base = await scopeBaseMicro(this.ctx.db, teamId, scope, this.ctx.clock.nowMs());
    await this.counters.load(scope, gen, base, Date.now(), this.opts.stateTtlMs);
  }
}

function settingKey(scope: BudgetScope): string {
  return `${scope.kind}:${scope.id}`;
}
