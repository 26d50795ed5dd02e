// Holds: money admitted work sets aside until its charges come in (a GPU instance's first
// hour). A hold counts against the team's balance (its pending charges) and the member's
// and key's budgets exactly like a charge, so concurrent admissions cannot spend it twice;
// each charge of the work then turns as much of the hold into spend, and stopping the work
// gives the rest back. Every change is announced (money.moved) after commit.
import type { DbOrTx, Tx } from '../../store/db.ts';
import * as q from '../../store/holds.ts';
import { lockTeam } from '../../store/accounts.ts';
import { deferChange } from '../changes.ts';
import { deltasOf, type Payer } from './scopes.ts';
import { maxBig, minBig } from '../../lib/money.ts';

export interface Holder {
  ownerId: string;
  payer: Payer;
}

/**
 * Set `holder`'s hold to `amountMicro` (0 removes it) inside `tx`. The team's row is locked
 * first (the order ledger postings use), so the team's pending sum stays exact.
 */
export async function setHoldTx(tx: Tx, holder: Holder, amountMicro: bigint, nowMs: number): Promise<void> {
  await lockTeam(tx, holder.payer.teamId);
  const existing = await q.lockHold(tx, holder.ownerId);
  const before = existing?.amountMicro ?? 0n;
  const after = maxBig(amountMicro, 0n);
  if (after === before) return;
  if (after === 0n) await q.deleteHold(tx, holder.ownerId);
  else {
    await q.upsertHold(tx, {
      ownerId: holder.ownerId, teamId: holder.payer.teamId, memberId: holder.payer.memberId, keyId: holder.payer.keyId,
      amountMicro: after, updatedAt: new Date(nowMs),
    });
  }
  await q.addTeamPending(tx, holder.payer.teamId, after - before);
  deferChange({ type: 'money.moved', deltas: deltasOf(holder.payer, before - after, { budgets: true }) });
}

/** A charge of `chargedMicro` came in for the holder's work: that much of its hold is now spend. */
export async function consumeHoldTx(tx: Tx, holder: Holder, chargedMicro: bigint, nowMs: number): Promise<void> {
  await lockTeam(tx, holder.payer.teamId);
  const existing = await q.lockHold(tx, holder.ownerId);
  if (!existing || existing.amountMicro === 0n) return;
  await setHoldTx(tx, holder, existing.amountMicro - minBig(existing.amountMicro, chargedMicro), nowMs);
}

export async function holdOf(tx: DbOrTx, ownerId: string): Promise<bigint> {
  return (await q.findHold(tx, ownerId))?.amountMicro ?? 0n;
}
