// What ending a person's console sessions announces, shared by the account changes that end
// them (persons.ts, two-factor.ts) and the console's own (domain/console/sessions.ts).
import type { EndedSession } from '../../store/console-sessions.ts';
import type { Ctx } from '../context.ts';

/**
 * Person sessions that ended (signed out, revoked, replaced, or by a password change or
 * reset): what they opened that outlives a call (a web terminal, domain/live-sessions) is
 * checked again, as when a key is revoked (key.changed names the session's id, its
 * principal's keyId).
 */
export function announceEnded(ctx: Ctx, ended: EndedSession[]): void {
  for (const e of ended) if (e.ref && e.teamId) ctx.changes.publish({ type: 'key.changed', teamId: e.teamId, keyId: e.ref });
}
