// Recording metered model usage: a usage event and its ledger charge (category llm, billing
// method 7, or for a batch line category batch, billing method 5; owner = the key), many requests per transaction (group commit). Invariants:
// - one event per request id (unique index) and one charge per request (idempotency key
//   `llm:<request id>`), so a retried batch can never count a request twice;
// - the event and the charge commit together, and before the client sees the response end.
import { newId } from '../../lib/ids.ts';
import { BILLING_METHOD } from '../billing/codes.ts';
import type { Ctx } from '../context.ts';
import { lockTeamOrThrow, postLockedTx, type PostingInput } from '../billing/ledger.ts';
import { insertUsageEventsBulk, writeUsageBatch, type UsageEventRow } from '../../store/usage.ts';
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

function posting(u: UsageRecord, cost: bigint): PostingInput {
  return {
    teamId: u.teamId, kind: 'charge', amountMicro: cost, idempotencyKey: `llm:${u.requestId}`,
    ...(u.billing === 'batch' ? { category: 'batch', billingMethod: BILLING_METHOD.batchApi } : { category: 'llm', billingMethod: BILLING_METHOD.llmMultimodal }),
    productId: u.model, productName: u.model,
    ownerId: u.keyId, memberId: u.memberId, keyId: u.keyId, atMs: u.atMs,
    detail: {
      billNum0: String(u.promptTokens), billNum1: String(u.completionTokens),
      basePrice0: u.inputPricePerMUnits.toString(), basePrice1: u.outputPricePerMUnits.toString(),
      // of billNum0, the tokens priced at the cached input price (only when there are any)
      ...(cachedOf(u) > 0 ? { cachedTokens: String(cachedOf(u)), cachedPrice: (u.cachedInputPricePerMUnits ?? u.inputPricePerMUnits).toString() } : {}),
    },
  };
}

/**
 * Record a batch in one transaction; teams are locked in id order so concurrent batches
 * never deadlock. Per team: the lock, then one statement with its ledger charges, its new
 * wallet and its usage events. `careful: false` (the fast path) skips the per-posting
 * idempotency lookup: request ids are fresh, and a duplicate still fails on the unique
 * indexes. `careful: true` (a replay, or the retry of a failed batch one request at a time)
 * is idempotent: a request recorded by an earlier try is left as it is.
 */
export async function recordUsage(ctx: Ctx, batch: UsageRecord[], careful = false): Promise<void> {
  const nowMs = ctx.clock.nowMs();
  await ctx.db.transaction((tx) => recordUsageTx(tx, nowMs, batch, careful));
}

/** recordUsage inside a transaction the caller holds (the PostgreSQL journal deletes what it records in the same one). */
export async function recordUsageTx(tx: Tx, nowMs: number, batch: UsageRecord[], careful = false): Promise<void> {
  const byTeam = new Map<string, UsageRecord[]>();
  for (const u of batch) {
    const list = byTeam.get(u.teamId) ?? [];
    list.push(u);
    byTeam.set(u.teamId, list);
  }
  for (const teamId of [...byTeam.keys()].sort()) {
    const list = byTeam.get(teamId)!;
    const costs = list.map(usageCostMicro);
    const events = (ledgerIds: Map<string, string>): UsageEventRow[] => list.map((u, i) => ({
      id: newId('event', u.atMs), requestId: u.requestId, teamId, memberId: u.memberId, keyId: u.keyId,
      model: u.model, endpoint: u.endpoint, promptTokens: u.promptTokens, completionTokens: u.completionTokens,
      cachedTokens: cachedOf(u), reasoningTokens: Math.max(0, Math.min(u.reasoningTokens ?? 0, u.completionTokens)),
      inputPricePerMUnits: u.inputPricePerMUnits, outputPricePerMUnits: u.outputPricePerMUnits,
      cachedInputPricePerMUnits: cachedOf(u) > 0 ? (u.cachedInputPricePerMUnits ?? u.inputPricePerMUnits) : null,
      costMicro: costs[i]!, ledgerId: ledgerIds.get(`llm:${u.requestId}`) ?? null, outcome: u.outcome,
      durationMs: Math.round(u.durationMs), createdAt: new Date(u.atMs),
    }));
    const charged = list.map((u, i) => ({ u, cost: costs[i]! })).filter((x) => x.cost > 0n);
    if (!charged.length) {
      await insertUsageEventsBulk(tx, events(new Map()), { skipExisting: careful });
      continue;
    }
    const team = await lockTeamOrThrow(tx, teamId);
    let folded = false;
    const posted = await postLockedTx(tx, team, charged.map((x) => posting(x.u, x.cost)), nowMs, {
      freshKeys: !careful,
      announce: false, // the gateway settles its own reservations for these charges
      persist: async (t, rows, wallet) => {
        // Fast path: every charge is new, so each event's ledger id is known here and the
        // events join the same statement. A careful pass may meet charges stored before;
        // its events are written below, linked to whichever entry each request has.
        folded = !careful;
        await writeUsageBatch(t, teamId, rows, wallet, folded ? events(new Map(rows.map((r) => [r.idempotencyKey, r.id!]))) : []);
      },
    });
    if (!folded) await insertUsageEventsBulk(tx, events(new Map(posted.map((p) => [p.entry.idempotencyKey, p.entry.id]))), { skipExisting: careful });
  }
}
