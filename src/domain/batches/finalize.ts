// The end of a batch, once every line has ended: its output file (the lines that were
// answered 2xx) and its error file (lines answered with an error, expired or cancelled) are
// written to the blob store as batch_output files, streamed page by page from the lines, and
// the batch becomes COMPLETED, EXPIRED or CANCELLED in the transaction that makes the files
// visible. Also the expiry: a batch past its window has its lines not started expired.
import type { Ctx } from '../context.ts';
import { writeOutputFile } from '../files/files.ts';
import type { Batches } from './service.ts';
import type { Tx } from '../../store/db.ts';
import * as q from '../../store/batches.ts';
import { finalizeIfDone, unansweredLine, type OutputLine } from './lines.ts';
import { announceBatchEnd } from './webhooks.ts';

const PAGE = 500;
/**
 * After its window closes, a batch waits this long for lines still running (a started line
 * finishes and is billed); a line still running then was left by a start that died and is
 * expired with the rest.
 */
export const RUNNING_GRACE_MS = 3_600_000;

const encoder = new TextEncoder();

/** The lines of `states` as JSONL, a page of rows at a time. */
async function* jsonl(ctx: Ctx, b: q.BatchRow, states: readonly string[]): AsyncGenerator<Uint8Array> {
  let after = 0;
  for (;;) {
    const rows = await q.pageLines(ctx.db, b.id, states, after, PAGE);
    if (!rows.length) return;
    let text = '';
    for (const r of rows) {
      const out: OutputLine = (r.result as OutputLine | null) ?? (r.state === 'cancelled'
        ? unansweredLine(b.id, r.line, r.customId, 'batch_cancelled', 'the batch was cancelled before this request started')
        : unansweredLine(b.id, r.line, r.customId, 'batch_expired', 'this request could not be executed before the completion window expired'));
      text += `${JSON.stringify(out)}\n`;
    }
    yield encoder.encode(text);
    after = rows.at(-1)!.line;
  }
}

export async function finalizeBatch(batches: Batches, batchId: string, complete: (fn: (tx: Tx) => Promise<void>) => Promise<void>): Promise<void> {
  const { ctx } = batches;
  const b = await q.findBatchById(ctx.db, batchId);
  if (!b || (b.status !== 'PROGRESS' && b.status !== 'CANCELLING')) return; // ended already
  const now = ctx.clock.nowMs();
  if (b.inProgressAtMs === null) {
    // Cancelled while validating: no line ever started.
    await complete(async (tx) => {
      if (await q.setBatchStatus(tx, batchId, ['CANCELLING'], { status: 'CANCELLED', cancelledAtMs: now, updatedAtMs: now })) await q.deleteLines(tx, batchId);
    });
    return;
  }
  if (b.ended < b.total) return; // queued when the last line ended; a batch read before that commit is not done
  await q.markFinalizing(ctx.db, batchId, now);
  const counts = await q.countLines(ctx.db, batchId);
  const owner = { teamId: b.teamId, memberId: b.memberId, keyId: b.keyId };
  const errorStates = ['failed', 'expired', 'cancelled'] as const;
  const output = counts.succeeded ? await writeOutputFile(batches.files, owner, `batch_${batchId}_output.jsonl`, jsonl(ctx, b, ['succeeded'])) : undefined;
  const errors = errorStates.some((s) => counts[s]) ? await writeOutputFile(batches.files, owner, `batch_${batchId}_error.jsonl`, jsonl(ctx, b, errorStates)) : undefined;
  const end = ctx.clock.nowMs();
  const final = b.status === 'CANCELLING' ? { status: 'CANCELLED', cancelledAtMs: end }
    : b.expiredAtMs !== null ? { status: 'EXPIRED', expiredAtMs: b.expiredAtMs }
    : { status: 'COMPLETED', completedAtMs: end };
  await complete(async (tx) => {
    if (output) await output.ready(tx);
    if (errors) await errors.ready(tx);
    const ended = await q.setBatchStatus(tx, batchId, ['PROGRESS', 'CANCELLING'], {
      ...final, outputFileId: output?.id ?? '', errorFileId: errors?.id ?? '', updatedAtMs: end,
    });
    await announceBatchEnd(ctx, tx, ended);
  });
}

/**
 * The batches.expire pass: every batch with work left past its window. One being validated
 * ends EXPIRED at once; one in progress has its lines not started expired (to the error
 * file, `batch_expired`) and ends when its running lines have (their work is billed and in
 * the output).
 */
export async function expireBatches(batches: Batches, signal: AbortSignal): Promise<number> {
  const { ctx } = batches;
  let n = 0;
  const now = ctx.clock.nowMs();
  for (const b of await q.openBatchesExpiredBy(ctx.db, now, 100)) {
    if (signal.aborted) break;
    await ctx.db.transaction(async (tx) => {
      if (b.status === 'VALIDATING') {
        const expired = await q.setBatchStatus(tx, b.id, ['VALIDATING'], { status: 'EXPIRED', expiredAtMs: now, updatedAtMs: now });
        if (expired) await q.deleteLines(tx, b.id);
        await announceBatchEnd(ctx, tx, expired);
        return;
      }
      if (b.status === 'PROGRESS') await q.markExpired(tx, b.id, now);
      let counted = await q.endPendingLines(tx, b.id, b.status === 'CANCELLING' ? 'cancelled' : 'expired', now);
      if (now >= b.expiresAtMs + RUNNING_GRACE_MS) counted = await q.endRunningLines(tx, b.id, now);
      await finalizeIfDone(ctx, tx, b.id, counted);
    });
    n++;
  }
  return n;
}
