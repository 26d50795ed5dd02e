// How the ledger tells interested parties (the gateway's budget counters) that money moved,
// after the transaction that moved it has committed. Paths that post inside their own
// transaction (postLockedTx) call notifyPosted once it has committed; anything missed is
// still caught when the gateway re-reads its state (GANTRY_BUDGET_STATE_TTL_MS).
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Ctx } from '../context.ts';
import type { Tx } from '../../store/db.ts';
import type { Posted } from './ledger.ts';

export interface PostedChange {
  teamId: string;
  kind: string; // topup | voucher | charge
  amountMicro: bigint;
  memberId: string | null;
  keyId: string | null;
}

export interface LedgerObserver {
  /** Entries that were committed (never duplicates). */
  posted(changes: PostedChange[]): void;
  /** A budget's limit or type changed, or it was removed: its loaded state is stale. */
  budgetChanged(scope: 'member' | 'key', subjectId: string): void;
}

export function notifyPosted(ctx: Ctx, posted: Posted[]): void {
  if (!ctx.ledgerObserver) return;
  const changes = posted.filter((p) => !p.duplicate).map(({ entry: e }) => ({
    teamId: e.teamId, kind: e.kind, amountMicro: e.amountMicro, memberId: e.memberId, keyId: e.keyId,
  }));
  if (changes.length) ctx.ledgerObserver.posted(changes);
}

const pending = new AsyncLocalStorage<Posted[]>();

/** Called by postLockedTx: inside transactionNotifying, its postings are announced after commit. */
export function collectPosted(posted: Posted[]): void {
  pending.getStore()?.push(...posted);
}

/**
 * A transaction whose ledger postings, however deep they happen (metering inside a state
 * change, say), are announced to the observer once it has committed — never before, and
 * never when it rolls back.
 */
export async function transactionNotifying<T>(ctx: Ctx, fn: (tx: Tx) => Promise<T>): Promise<T> {
  const collected: Posted[] = [];
  const result = await pending.run(collected, () => ctx.db.transaction(fn));
  notifyPosted(ctx, collected);
  return result;
}
