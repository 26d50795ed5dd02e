// A batch that ended COMPLETED, FAILED or EXPIRED is announced to the team's webhook
// endpoints (batch.completed, batch.failed, batch.expired; data: the batch object), in the
// transaction that ends it. A cancelled batch is not an event (the team asked for it).
import type { Ctx } from '../context.ts';
import type { Tx } from '../../store/db.ts';
import type { BatchRow } from '../../store/batches.ts';
import { enqueueWebhook } from '../webhooks/enqueue.ts';
import { batchView } from './view.ts';

const EVENT = { COMPLETED: 'batch.completed', FAILED: 'batch.failed', EXPIRED: 'batch.expired' } as const;

/** `row`: the batch as its final status change returned it (undefined when that did not happen). */
export async function announceBatchEnd(ctx: Ctx, tx: Tx, row: BatchRow | undefined): Promise<void> {
  const event = row ? EVENT[row.status as keyof typeof EVENT] : undefined;
  if (row && event) await enqueueWebhook(ctx, { teamId: row.teamId, event, payload: batchView(row) }, { tx });
}
