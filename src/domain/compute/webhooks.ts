// Every change of an instance's status is announced to the team's webhook endpoints
// (instance.state_changed), in the transaction that moves it (moveTx): the reconciler's moves
// (creating → pulling → running, exited, a budget run out) and the team's operations alike.
import type { Ctx } from '../context.ts';
import type { Tx } from '../../store/db.ts';
import type { InstanceRow } from '../../store/compute.ts';
import { enqueueWebhook } from '../webhooks/enqueue.ts';

export async function announceInstanceState(ctx: Ctx, tx: Tx, after: InstanceRow, from: string, nowMs: number): Promise<void> {
  await enqueueWebhook(ctx, {
    teamId: after.teamId, event: 'instance.state_changed',
    payload: {
      instance_id: after.id, name: after.name, previous_status: from, status: after.status,
      status_error: after.statusErrorState ? { state: after.statusErrorState, message: after.statusErrorMessage } : null,
      changed_at: Math.floor(nowMs / 1000),
    },
  }, { tx });
}
