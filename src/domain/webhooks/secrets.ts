// Each team's signing secret. It is created on first use (the first GET, or the first
// delivery), sealed at rest with the data dir's key: signing needs the secret itself, so a
// hash would not do, and a database dump or backup alone does not give it away. A rotation
// keeps the previous secret signing beside the new one for 24 hours.
import { inTransaction } from '../changes.ts';
import * as q from '../../store/webhooks.ts';
import type { DbOrTx } from '../../store/db.ts';
import { PREVIOUS_SECRET_MS } from './codes.ts';
import { newSecret } from './signature.ts';
import type { Webhooks } from './service.ts';

async function ensure(w: Webhooks, db: DbOrTx, teamId: string, opts: { forUpdate?: boolean } = {}): Promise<q.SecretRow> {
  const found = await q.findSecret(db, teamId, opts);
  if (found) return found;
  await q.insertSecretIfAbsent(db, { teamId, secretSealed: w.box.seal(newSecret()), createdAtMs: w.ctx.clock.nowMs() });
  return (await q.findSecret(db, teamId, opts))!;
}

/** The team's current secret (created now if it has none). */
export async function getSecret(w: Webhooks, teamId: string): Promise<string> {
  return w.box.open((await ensure(w, w.ctx.db, teamId)).secretSealed);
}

/** A new current secret; the one it replaces signs too for 24 hours (a previous one still signing is dropped). */
export async function rotateSecret(w: Webhooks, teamId: string): Promise<{ secret: string; previousValidUntilMs: number }> {
  return inTransaction(w.ctx, async (tx) => {
    const row = await ensure(w, tx, teamId, { forUpdate: true });
    const now = w.ctx.clock.nowMs();
    const secret = newSecret();
    const previousValidUntilMs = now + PREVIOUS_SECRET_MS;
    await q.updateSecret(tx, teamId, {
      secretSealed: w.box.seal(secret), previousSealed: row.secretSealed, previousUntilMs: previousValidUntilMs, rotatedAtMs: now,
    });
    return { secret, previousValidUntilMs };
  });
}

/** The secrets an attempt now is signed with: the current one, then the previous one within its 24 hours. */
export async function signingSecrets(w: Webhooks, teamId: string): Promise<string[]> {
  const row = await ensure(w, w.ctx.db, teamId);
  const out = [w.box.open(row.secretSealed)];
  if (row.previousSealed && row.previousUntilMs !== null && w.ctx.clock.nowMs() < row.previousUntilMs) out.push(w.box.open(row.previousSealed));
  return out;
}
