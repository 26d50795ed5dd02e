// The Batches API (OpenAI-compatible; interface.md "Batch job", compat.md batches row):
// create, retrieve, list, cancel. A batch belongs to its team: every key of the team sees it,
// another team's id is 404. Creating one queues its validation (a durable job) in the same
// transaction; the work after that is jobs (validate.ts, lines.ts, finalize.ts). Rules in
// ./README.md.
import type { Ctx } from '../context.ts';
import type { Principal } from '../roles.ts';
import type { Files } from '../files/files.ts';
import { inTransaction } from '../changes.ts';
import { bad, batchNotFound } from './errors.ts';
import { newId } from '../../lib/ids.ts';
import * as q from '../../store/batches.ts';
import { findFile } from '../../store/files.ts';
import { batchView, type BatchEndpoint, type BatchObject } from './view.ts';
import { finalizeIfDone } from './lines.ts';

/** interface.md: the completion window is fixed at 48 hours. */
export const COMPLETION_WINDOW = '48h';
export const COMPLETION_WINDOW_MS = 48 * 3_600_000;

export interface CreateBatch {
  input_file_id: string;
  endpoint: BatchEndpoint;
  completion_window?: string | undefined;
  metadata?: Record<string, string> | null | undefined;
}

export interface BatchList {
  object: 'list';
  data: BatchObject[];
  first_id: string | null;
  last_id: string | null;
  has_more: boolean;
}

/**
 * The batches area's context: the store, and the Files API its finished batches write their
 * output and error files to (finalize.ts).
 */
export interface Batches {
  ctx: Ctx;
  files: Files;
}

export async function createBatch(batches: Batches, p: Principal, body: CreateBatch): Promise<BatchObject> {
  const { ctx } = batches;
  const now = ctx.clock.nowMs();
  if (body.completion_window !== undefined && body.completion_window !== COMPLETION_WINDOW) {
    throw bad('completion_window', `must be ${COMPLETION_WINDOW} (fixed)`);
  }
  const file = await findFile(ctx.db, p.teamId, body.input_file_id, now);
  if (!file) throw bad('input_file_id', `no file ${body.input_file_id} of this team: upload one with purpose batch`);
  if (file.purpose !== 'batch') throw bad('input_file_id', `file ${file.id} has purpose ${file.purpose}; a batch input needs purpose batch`);
  const row: q.NewBatchRow = {
    id: newId('batch', now), teamId: p.teamId, memberId: p.memberId, keyId: p.keyId, role: p.role,
    endpoint: body.endpoint, inputFileId: file.id, completionWindow: COMPLETION_WINDOW, status: 'VALIDATING',
    metadata: body.metadata ?? null, total: file.totalRequests, createdAtMs: now, updatedAtMs: now, expiresAtMs: now + COMPLETION_WINDOW_MS,
  };
  await inTransaction(ctx, async (tx) => {
    await q.insertBatch(tx, row);
    await ctx.jobs.enqueue('batch.validate', { batchId: row.id }, { tx });
  });
  return batchView((await q.findBatchById(ctx.db, row.id))!);
}

export async function getBatch(batches: Batches, p: Principal, id: string): Promise<BatchObject> {
  const row = await q.findBatch(batches.ctx.db, p.teamId, id);
  if (!row) throw batchNotFound(id);
  return batchView(row);
}

/** Newest first; `after` is the last id of the previous page (OpenAI's cursor). */
export async function listBatches(batches: Batches, p: Principal, f: { after?: string | undefined; limit: number }): Promise<BatchList> {
  const rows = await q.listBatches(batches.ctx.db, p.teamId, f.after, f.limit + 1);
  const data = rows.slice(0, f.limit).map(batchView);
  return { object: 'list', data, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null, has_more: rows.length > f.limit };
}

/**
 * CANCELLING at once: lines not started are cancelled with it, lines running finish; the
 * batch becomes CANCELLED with the partial output when the last one has (finalize.ts).
 * Cancelling a batch already cancelling answers it as it is.
 */
export async function cancelBatch(batches: Batches, p: Principal, id: string): Promise<BatchObject> {
  const { ctx } = batches;
  const found = await q.findBatch(ctx.db, p.teamId, id);
  if (!found) throw batchNotFound(id);
  if (found.status === 'CANCELLING') return batchView(found);
  const now = ctx.clock.nowMs();
  await inTransaction(ctx, async (tx) => {
    const row = await q.setBatchStatus(tx, id, ['VALIDATING', 'PROGRESS'], { status: 'CANCELLING', cancellingAtMs: now, updatedAtMs: now });
    if (!row) throw bad('batch_id', `a batch whose status is ${found.status} cannot be cancelled`);
    // While validating there are no lines to wait for: the validation stops at its next check.
    if (row.inProgressAtMs === null) await ctx.jobs.enqueue('batch.finalize', { batchId: id }, { tx });
    else await finalizeIfDone(ctx, tx, id, await q.endPendingLines(tx, id, 'cancelled', now));
  });
  return batchView((await q.findBatchById(ctx.db, id))!);
}
