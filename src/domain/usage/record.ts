// Recording metered model usage: a usage event per request and ledger charges (category llm,
// billing method 7, or for a batch line category batch, billing method 5; owner = the key),
// one per group of like requests answered in the same second (chargeGroups), many requests
// per transaction (group commit). Invariants:
// - one event per request id (unique index), and each event points at the one charge that
//   covers it: a charge's amount is the sum of its events' costs and its `requests` their
//   number, so a retried batch can never count a request twice;
// - the events and their charges commit together, and before the client sees the response end.
import { newId } from '../../lib/ids.ts';
import { BILLING_METHOD } from '../billing/codes.ts';
import type { Ctx } from '../context.ts';
import { lockTeamOrThrow, postLockedTx, type PostingInput } from '../billing/ledger.ts';
import { insertUsageEventsBulk, recordedRequestIds, writeUsageBatch, type UsageEventRow } from '../../store/usage.ts';
import type { Tx } from '../../store/db.ts';


export interface UsageRecord {
  requestId: string;
  teamId: string;
  memberId: string;
  keyId: string;
  model: string;
  endpoint: string;
  promptTokens: number;
  completionTokens: number;
  inputPricePerMUnits: bigint;
  outputPricePerMUnits: bigint;
  /** of promptTokens, how many the upstream served from its cache; absent: none */
  cachedTokens?: number | undefined;
  /** of completionTokens, how many were reasoning (billed as output, as OpenAI counts them); absent: none */
  reasoningTokens?: number | undefined;
  /** the cached prompt tokens' price; absent: the input price */
  cachedInputPricePerMUnits?: bigint | undefined;
  outcome: 'completed' | 'client_cancelled';
  durationMs: number;
  atMs: number;
  /** a batch line's usage: category batch, billing method 5 (Batch API); absent: an interactive call */
  billing?: 'batch' | undefined;
}

type Priced = Pick<UsageRecord, 'promptTokens' | 'completionTokens' | 'inputPricePerMUnits' | 'outputPricePerMUnits' | 'cachedTokens' | 'cachedInputPricePerMUnits'>;

/** Cached prompt tokens, never more than the prompt (an upstream's report is not trusted beyond that). */
export function cachedOf(u: Pick<UsageRecord, 'promptTokens' | 'cachedTokens'>): number {
  return Math.max(0, Math.min(u.cachedTokens ?? 0, u.promptTokens));
}

/**
 * Exact cost in micro-units: price is units per 1e6 tokens and 1 unit is 1e6 micro. Cached
 * prompt tokens are priced at the cached input price, the rest of the prompt at the input
 * price; reasoning tokens are part of the completion tokens (OpenAI's usage) and priced as output.
 */
export function usageCostMicro(u: Priced): bigint {
  const cached = BigInt(cachedOf(u));
  return (BigInt(u.promptTokens) - cached) * u.inputPricePerMUnits + cached * (u.cachedInputPricePerMUnits ?? u.inputPricePerMUnits)
    + BigInt(u.completionTokens) * u.outputPricePerMUnits;
}

/**
 * The requests one ledger charge covers: same team, category, model, member, key and prices,
 * answered within the same second. Bills are sums over hours, days, weeks and months, and
 * every bill query's times are whole Unix seconds, so a charge per second and group reads
 * back exactly as a charge per request would; a burst of thousands of requests from one key
 * costs the ledger one row a second instead of one a request (issue 17: the embedded
 * database's thread spent half its time per request on that row and its four indexes).
 */
interface ChargeGroup {
  first: UsageRecord;
  /** when its last request was answered: the charge's time (within the second it covers) */
  lastMs: number;
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
  cachedPrice: bigint;
  cost: bigint;
  /** the requests' places in the team's list: their events point at this group's charge */
  members: number[];
}

function chargeGroups(list: UsageRecord[], costs: bigint[]): ChargeGroup[] {
  const groups = new Map<string, ChargeGroup>();
  list.forEach((u, i) => {
    if (costs[i]! <= 0n) return; // nothing to post: its event has no charge
    const second = Math.floor(u.atMs / 1000);
    const cachedPrice = u.cachedInputPricePerMUnits ?? u.inputPricePerMUnits;
    const key = `${u.billing ?? ''}|${u.model}|${u.memberId}|${u.keyId}|${u.inputPricePerMUnits}|${u.outputPricePerMUnits}|${cachedPrice}|${second}`;
    let g = groups.get(key);
    if (!g) {
      g = { first: u, lastMs: u.atMs, promptTokens: 0, completionTokens: 0, cachedTokens: 0, cachedPrice, cost: 0n, members: [] };
      groups.set(key, g);
    }
    g.lastMs = Math.max(g.lastMs, u.atMs);
    g.promptTokens += u.promptTokens;
    g.completionTokens += u.completionTokens;
    g.cachedTokens += cachedOf(u);
    g.cost += costs[i]!;
    g.members.push(i);
  });
  return [...groups.values()]; // in the order their first requests were answered (the wallet's split follows it)
}

function posting(g: ChargeGroup): PostingInput {
  const u = g.first;
  return {
    // the group's first request names it: each request is in exactly one group, once
    teamId: u.teamId, kind: 'charge', amountMicro: g.cost, idempotencyKey: `llm:${u.requestId}`,
    ...(u.billing === 'batch' ? { category: 'batch', billingMethod: BILLING_METHOD.batchApi } : { category: 'llm', billingMethod: BILLING_METHOD.llmMultimodal }),
    productId: u.model, productName: u.model,
    // Stamped when its last request was answered: never earlier than any request it covers, so
    // a reader counting from a moment (a One-time budget's set_at) never misses a request
    // answered after it; it may count one answered earlier in the same second (never less).
    ownerId: u.keyId, memberId: u.memberId, keyId: u.keyId, atMs: g.lastMs,
    detail: {
      billNum0: String(g.promptTokens), billNum1: String(g.completionTokens),
      basePrice0: u.inputPricePerMUnits.toString(), basePrice1: u.outputPricePerMUnits.toString(),
      // of billNum0, the tokens priced at the cached input price (only when there are any)
      ...(g.cachedTokens > 0 ? { cachedTokens: String(g.cachedTokens), cachedPrice: g.cachedPrice.toString() } : {}),
      requests: String(g.members.length),
    },
  };
}

/**
 * Record a batch in one transaction; teams are locked in id order so concurrent batches
 * never deadlock. Per team: the lock, then one statement with its ledger charges (one per
 * group of requests, chargeGroups), its new wallet and its usage events (one per request,
 * each pointing at the charge that covers it). `careful: false` (the fast path): request ids
 * are fresh, and a duplicate still fails on the unique index of usage events. `careful: true`
 * (a replay, or the retry of a failed batch one request at a time) is idempotent: a request
 * with an event already is left out (its charge committed with that event).
 */
export async function recordUsage(ctx: Ctx, batch: UsageRecord[], careful = false): Promise<void> {
  const nowMs = ctx.clock.nowMs();
  await ctx.db.transaction((tx) => recordUsageTx(tx, nowMs, batch, careful));
}

/** recordUsage inside a transaction the caller holds (the PostgreSQL journal deletes what it records in the same one). */
export async function recordUsageTx(tx: Tx, nowMs: number, batch: UsageRecord[], careful = false): Promise<void> {
  const byTeam = new Map<string, UsageRecord[]>();
  for (const u of careful ? await unrecorded(tx, batch) : batch) {
    const list = byTeam.get(u.teamId) ?? [];
    list.push(u);
    byTeam.set(u.teamId, list);
  }
  for (const teamId of [...byTeam.keys()].sort()) {
    const list = byTeam.get(teamId)!;
    const costs = list.map(usageCostMicro);
    const groups = chargeGroups(list, costs);
    const ledgerIdOf: (string | null)[] = list.map(() => null);
    const events = (): UsageEventRow[] => list.map((u, i) => ({
      id: newId('event', u.atMs), requestId: u.requestId, teamId, memberId: u.memberId, keyId: u.keyId,
      model: u.model, endpoint: u.endpoint, promptTokens: u.promptTokens, completionTokens: u.completionTokens,
      cachedTokens: cachedOf(u), reasoningTokens: Math.max(0, Math.min(u.reasoningTokens ?? 0, u.completionTokens)),
      inputPricePerMUnits: u.inputPricePerMUnits, outputPricePerMUnits: u.outputPricePerMUnits,
      cachedInputPricePerMUnits: cachedOf(u) > 0 ? (u.cachedInputPricePerMUnits ?? u.inputPricePerMUnits) : null,
      costMicro: costs[i]!, ledgerId: ledgerIdOf[i]!, outcome: u.outcome,
      durationMs: Math.round(u.durationMs), createdAt: new Date(u.atMs),
    }));
    if (!groups.length) {
      await insertUsageEventsBulk(tx, events());
      continue;
    }
    const team = await lockTeamOrThrow(tx, teamId);
    await postLockedTx(tx, team, groups.map(posting), nowMs, {
      freshKeys: true, // a group's key is its first request's, and no request is here twice (unrecorded)
      announce: false, // the gateway settles its own reservations for these charges
      persist: async (t, rows, wallet) => {
        // every charge is new, so each event's ledger id is known here and the events join the same statement
        rows.forEach((r, gi) => { for (const i of groups[gi]!.members) ledgerIdOf[i] = r.id!; });
        await writeUsageBatch(t, teamId, rows, wallet, events());
      },
    });
  }
}

/** The batch without the requests recorded before (an event exists) and without repeats. */
async function unrecorded(tx: Tx, batch: UsageRecord[]): Promise<UsageRecord[]> {
  const done = await recordedRequestIds(tx, batch.map((u) => u.requestId));
  const out = new Map<string, UsageRecord>();
  for (const u of batch) if (!done.has(u.requestId) && !out.has(u.requestId)) out.set(u.requestId, u);
  return [...out.values()];
}
