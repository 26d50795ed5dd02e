// The Batches API (OpenAI-compatible; interface.md "Batch job", compat.md batches row):
// create, retrieve, list, cancel. A batch belongs to its team: every key of the team sees it,
// another team's id is 404. Creating one queues its validation (a durable job) in the same
// transaction; the work after that is jobs (validate.ts, lines.ts, finalize.ts). Rules in
// ./README.md. These answer the batch itself; the routes render it in the shapes of the base
// they serve (view.ts: the interface's, or OpenAI's on /v1).
import type { Ctx } from '../context.ts';
import type { Principal } from '../roles.ts';
import type { Files } from '../files/files.ts';
import { inTransaction } from '../changes.ts';
import { bad, batchNotFound } from './errors.ts';
import { newId } from '../../lib/ids.ts';
import * as q from '../../store/batches.ts';
import { findFile } from '../../store/files.ts';
import type { Batch, BatchEndpoint } from './view.ts';
import { finalizeIfDone } from './lines.ts';
import { BATCH_JOBS } from './jobs.ts';

/** interface.md: the completion window is fixed at 48 hours. */
export const COMPLETION_WINDOW = '48h';
export const COMPLETION_WINDOW_MS = 48 * 3_600_000;
/**
 * What a client may ask for: the interface's `48h`, and OpenAI's only value `24h` (the
 * openai package's typed one). Either way the window applied is the interface's 48 h
 * (docs/compat-decisions.md, Batches): a batch is never expired sooner than the interface
 * promises; a client that asked for 24 h may get its last answers later than that, never
 * fewer answers.
 */
export const COMPLETION_WINDOWS = ['24h', COMPLETION_WINDOW] as const;

export interface CreateBatch {
  input_file_id: string;
  endpoint: BatchEndpoint;
  completion_window?: string | undefined;
  metadata?: Record<string, string> | null | undefined;
}

export interface BatchList<B = Batch> {
  object: 'list';
  data: B[];
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

/** The batches area's context from the graph (its entry of src/areas.ts): its inputs and outputs are files. */
export function batchesContext(s: { ctx: Ctx; files: Files }): Batches {
  return { ctx: s.ctx, files: s.files };
}

export async function createBatch(batches: Batches, p: Principal, body: CreateBatch): Promise<Batch> {
  const { ctx } = batches;
  const now = ctx.clock.nowMs();
  if (body.completion_window !== undefined && !(COMPLETION_WINDOWS as readonly string[]).includes(body.completion_window)) {
    throw bad('completion_window', `must be one of ${COMPLETION_WINDOWS.join(', ')} (the window applied is ${COMPLETION_WINDOW})`);
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
    await ctx.jobs.enqueue(BATCH_JOBS.validate, { batchId: row.id }, { tx });
  });
  return (await q.findBatchById(ctx.db, row.id))!;
}

export async function getBatch(batches: Batches, p: Principal, id: string): Promise<Batch> {
  const row = await q.findBatch(batches.ctx.db, p.teamId, id);
  if (!row) throw batchNotFound(id);
  return row;
}

/** Newest first; `after` is the last id of the previous page (OpenAI's cursor). */
export async function listBatches(batches: Batches, p: Principal, f: { after?: string | undefined; limit: number }): Promise<BatchList> {
  const rows = await q.listBatches(batches.ctx.db, p.teamId, f.after, f.limit + 1);
  const data = rows.slice(0, f.limit);
  return { object: 'list', data, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null, has_more: rows.length > f.limit };
}

/**
 * CANCELLING at once: lines not started are cancelled with it, lines running finish; the
 * batch becomes CANCELLED with the partial output when the last one has (finalize.ts).
 * Cancelling a batch already cancelling answers it as it is.
 */
export async function cancelBatch(batches: Batches, p: Principal, id: string): Promise<Batch> {
  const { ctx } = batches;
  const found = await q.findBatch(ctx.db, p.teamId, id);
  if (!found) throw batchNotFound(id);
  if (found.status === 'CANCELLING') return found;
  const now = ctx.clock.nowMs();
  await inTransaction(ctx, async (tx) => {
    const row = await q.setBatchStatus(tx, id, ['VALIDATING', 'PROGRESS'], { status: 'CANCELLING', cancellingAtMs: now, updatedAtMs: now });
    if (!row) throw bad('batch_id', `a batch whose status is ${found.status} cannot be cancelled`);
    // While validating there are no lines to wait for: the validation stops at its next check.
    if (row.inProgressAtMs === null) await ctx.jobs.enqueue(BATCH_JOBS.finalize, { batchId: id }, { tx });
    else await finalizeIfDone(ctx, tx, id, await q.endPendingLines(tx, id, 'cancelled', now));
  });
  return (await q.findBatchById(ctx.db, id))!;
}
