// Posting money movements. Rules are stated in ./README.md; keep the two in step.
import { invalid, notFound } from '../../lib/errors.ts';
import { idempotencyKeyReused } from './errors.ts';
import { newId } from '../../lib/ids.ts';
import { minBig, maxBig } from '../../lib/money.ts';
import { isBillingMethod, MAX_BILLING_METHOD, MIN_BILLING_METHOD } from './codes.ts';
import type { Ctx } from '../context.ts';
import type { Tx } from '../../store/db.ts';
import { lockTeam, updateTeam, type TeamRow, type WalletColumns } from '../../store/accounts.ts';
import * as q from '../../store/ledger.ts';
import { deferChange, inTransaction } from '../changes.ts';
import { deltasOf, type ScopeDelta } from '../spend/scopes.ts';

export const LEDGER_KINDS = ['topup', 'voucher', 'charge'] as const;
export type LedgerKind = (typeof LEDGER_KINDS)[number];


export interface PostingInput {
  teamId: string;
  kind: LedgerKind;
  amountMicro: bigint;
  idempotencyKey: string;
  category?: string;
  billingMethod?: number;
  productId?: string;
  productName?: string;
  ownerId?: string;
  memberId?: string | null;
  keyId?: string | null;
  detail?: Record<string, string>;
  atMs?: number;
}

export interface Posted {
  entry: q.LedgerRow;
  duplicate: boolean;
}

/** The balance fields a posting changes (the team row's wallet columns). */
export type Wallet = WalletColumns;

/** Split one posting over the wallet: vouchers first, then cash, the rest is owed. */
export function applyToWallet(w: Wallet, kind: LedgerKind, amount: bigint): { wallet: Wallet; voucher: bigint; cash: bigint; debt: bigint } {
  if (kind === 'voucher') {
    return { wallet: { ...w, voucherMicro: w.voucherMicro + amount }, voucher: amount, cash: 0n, debt: 0n };
  }
  if (kind === 'topup') {
    // A top-up settles what is owed before it adds to cash.
    const repay = minBig(w.outstandingMicro, amount);
    return {
      wallet: { ...w, outstandingMicro: w.outstandingMicro - repay, cashMicro: w.cashMicro + amount - repay },
      voucher: 0n, cash: amount - repay, debt: -repay,
    };
  }
  const voucher = minBig(maxBig(w.voucherMicro, 0n), amount);
  const cash = minBig(maxBig(w.cashMicro, 0n), amount - voucher);
  const debt = amount - voucher - cash;
  return {
    wallet: {
      voucherMicro: w.voucherMicro - voucher,
      cashMicro: w.cashMicro - cash,
      outstandingMicro: w.outstandingMicro + debt,
    },
    voucher, cash, debt,
  };
}

function validate(p: PostingInput): void {
  if (!p.idempotencyKey || p.idempotencyKey.length > 255) throw invalid('idempotencyKey', 'must be 1-255 characters');
  if (p.amountMicro <= 0n) throw invalid('amount', 'must be > 0');
  if (p.billingMethod !== undefined && p.kind === 'charge' && !isBillingMethod(p.billingMethod)) {
    throw invalid('billingMethod', `must be one of ${MIN_BILLING_METHOD}-${MAX_BILLING_METHOD}`);
  }
}

/**
 * Post entries of one team inside `tx`, which must hold the team's row lock (see lockTeam).
 * A repeated idempotency key with the same kind and amount is a no-op; with a different
 * kind or amount it is a conflict, never a second charge.
 */
export interface PostOptions {
  /** The caller minted the idempotency keys itself (the gateway's request ids): skip the lookup. */
  freshKeys?: boolean;
  /**
   * Writes the new rows and the team's new wallet in place of the two default statements
   * (the gateway's usage writer folds them, and its usage events, into one statement).
   */
  persist?: (tx: Tx, rows: q.LedgerInsert[], wallet: Wallet) => Promise<void>;
  /**
   * Announce the money moved (a `money.moved` change after commit; the default). The
   * gateway's usage writer says no: its charges settle reservations it holds itself.
   */
  announce?: boolean;
}

/** What postings change in what the team, and the member and key charged, may still spend. */
export function moneyMoved(rows: q.LedgerRow[]): ScopeDelta[] {
  return rows.flatMap((e) => deltasOf(
    { teamId: e.teamId, memberId: e.memberId, keyId: e.keyId },
    e.kind === 'charge' ? -e.amountMicro : e.amountMicro,
    { budgets: e.kind === 'charge' },
  ));
}

export async function postLockedTx(tx: Tx, team: TeamRow, postings: PostingInput[], nowMs: number, opts: PostOptions = {}): Promise<Posted[]> {
  const out: Posted[] = [];
  let wallet: Wallet = { cashMicro: team.cashMicro, voucherMicro: team.voucherMicro, outstandingMicro: team.outstandingMicro };
  const rows: q.LedgerInsert[] = [];
  const seen = new Map<string, q.LedgerRow>();
  for (const p of postings) {
    validate(p);
    // freshKeys: the caller minted the keys itself (the gateway's request ids), so the lookup
    // is skipped; the unique index still refuses a duplicate, failing the transaction.
    const existing = seen.get(p.idempotencyKey) ?? (opts.freshKeys ? undefined : await q.findByIdempotencyKey(tx, team.id, p.idempotencyKey));
    if (existing) {
      if (existing.kind !== p.kind || existing.amountMicro !== p.amountMicro) {
        throw idempotencyKeyReused(p.idempotencyKey);
      }
      out.push({ entry: existing, duplicate: true });
      continue;
    }
    const split = applyToWallet(wallet, p.kind, p.amountMicro);
    wallet = split.wallet;
    const row: q.LedgerRow = {
      id: newId('ledger', nowMs),
      teamId: team.id,
      kind: p.kind,
      amountMicro: p.amountMicro,
      voucherMicro: split.voucher,
      cashMicro: split.cash,
      debtMicro: split.debt,
      category: p.category ?? '',
      billingMethod: p.billingMethod ?? 0,
      productId: p.productId ?? '',
      productName: p.productName ?? '',
      ownerId: p.ownerId ?? '',
      memberId: p.memberId ?? null,
      keyId: p.keyId ?? null,
      detail: p.detail ?? {},
      idempotencyKey: p.idempotencyKey,
      createdAt: new Date(p.atMs ?? nowMs),
    };
    rows.push(row);
    seen.set(p.idempotencyKey, row);
    out.push({ entry: row, duplicate: false });
  }
  if (rows.length) {
    if (opts.persist) await opts.persist(tx, rows, wallet);
    else {
      await q.insertLedgerEntries(tx, rows);
      await updateTeam(tx, team.id, wallet);
    }
  }
  if (rows.length && opts.announce !== false) deferChange({ type: 'money.moved', deltas: moneyMoved(rows as q.LedgerRow[]) });
  if (rows.some((r) => r.kind === 'topup')) deferChange({ type: 'team.changed', teamId: team.id }); // top-ups earn tiers
  return out;
}

export async function lockTeamOrThrow(tx: Tx, teamId: string): Promise<TeamRow> {
  const team = await lockTeam(tx, teamId);
  if (!team) throw notFound('team', teamId);
  return team;
}

export async function post(ctx: Ctx, p: PostingInput): Promise<Posted> {
  // announced to the gateway's counters after commit, so nobody reloads a state without it
  const [posted] = await inTransaction(ctx, async (tx) => {
    const team = await lockTeamOrThrow(tx, p.teamId);
    return postLockedTx(tx, team, [p], ctx.clock.nowMs());
  });
  return posted!;
}
