// Sends a team asks for now (a test send, a manual retry) are throttled per endpoint and per
// team (issue 40): each is a POST to a third party's server at the team's word, and 40 asked in
// a burst were 40 POSTs. Counted in the rate windows of the shared counters (the model RPM's:
// in process, or in Redis so the limits hold across replicas; GANTRY_REDIS_FAIL_OPEN decides,
// as for every limit, what happens while Redis is away), one minute sliding. The endpoint's
// window is asked first: a send its team's window then refuses has counted against the
// endpoint (conservative, never one more POST). Deliveries of events are not throttled here:
// they follow what happened, not a request to send.
import { newId } from '../../lib/ids.ts';
import { sendsThrottled } from './errors.ts';
import type { Webhooks } from './service.ts';

/** The window the send limits count in. */
export const SEND_WINDOW_MS = 60_000;

/** Counts one send the team asked for to `endpointId`, or throws the 429 of the first limit it passes. */
export async function admitSend(w: Webhooks, teamId: string, endpointId: string): Promise<void> {
  const { sendsPerEndpointPerMinute: perEndpoint, sendsPerTeamPerMinute: perTeam } = w.settings;
  const limits = [
    { scope: 'endpoint', key: `webhook-sends:endpoint:${endpointId}`, limit: perEndpoint },
    { scope: 'team', key: `webhook-sends:team:${teamId}`, limit: perTeam },
  ] as const;
  for (const { scope, key, limit } of limits) {
    if (limit === 0) continue; // 0: no limit
    const nowMs = w.ctx.clock.nowMs();
    const wallMs = Date.now();
    const r = await w.counters.admit({
      requestId: newId('request', nowMs), nowMs, wallMs, scopes: [], costMicro: 0n, leaseUntilMs: wallMs, stateTtlMs: 0,
      rate: { key, rpmLimit: limit, tpmLimit: null, tokens: 0, windowMs: SEND_WINDOW_MS },
    });
    if (r.kind === 'rpm') throw sendsThrottled(scope, limit, Math.max(1, Math.ceil(r.retryAfterMs / 1000)));
  }
}
