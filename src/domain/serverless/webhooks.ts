// A serverless endpoint's state change is announced to the team's webhook endpoints
// (endpoint.state_changed), in the transaction that changes it: the runtime's moves
// (initializing → serving, stopped when money ran out, failed after boot failures) and the
// team's own (an update that restarts it, a delete: terminating).
import type { Ctx } from '../context.ts';
import type { DbOrTx } from '../../store/db.ts';
import { enqueueWebhook } from '../webhooks/enqueue.ts';

export interface EndpointStateChange {
  endpoint: { id: string; teamId: string; appName: string };
  from: string;
  to: string;
  error?: string | undefined;
  message?: string | undefined;
  nowMs: number;
}

export async function announceEndpointState(ctx: Ctx, tx: DbOrTx, c: EndpointStateChange): Promise<void> {
  if (c.from === c.to) return;
  await enqueueWebhook(ctx, {
    teamId: c.endpoint.teamId, event: 'endpoint.state_changed',
    payload: {
      endpoint_id: c.endpoint.id, app_name: c.endpoint.appName, previous_state: c.from, state: c.to,
      error: c.error || null, message: c.message || null, changed_at: Math.floor(c.nowMs / 1000),
    },
  }, { tx });
}
