// A batch's lines: their ids, the lines of the output and error files (OpenAI's format
// `{id, custom_id, response: {status_code, request_id, body}, error}`), their start (a chunk
// of lines per job) and their end, which moves the batch's counters and, at the last line,
// queues the finalizer in the same transaction.
import { isSessionRef } from '../keys/authenticator.ts';
import type { Ctx } from '../context.ts';
import type { DbOrTx } from '../../store/db.ts';
import * as q from '../../store/batches.ts';
import type { AppError } from '../../lib/errors.ts';
import { creatorKeyRevoked, creatorSuspended } from './errors.ts';
import { BATCH_JOBS } from './jobs.ts';

export interface OutputLine {
  id: string;
  custom_id: string;
  response: { status_code: number; request_id: string; body: unknown } | null;
  error: { code: string; message: string } | null;
}

const suffix = (batchId: string) => batchId.slice(batchId.indexOf('_') + 1);

/**
 * The request id of a line, fixed by the batch and the line: a line run again after a crash
 * records its usage under the same id, which the usage events and the ledger take once.
 */
export function lineRequestId(batchId: string, line: number): string {
  return `req_${suffix(batchId)}l${line}`;
}

/** The id of a line in the output and error files (OpenAI: `batch_req_…`). */
export function outputLineId(batchId: string, line: number): string {
  return `batch_req_${suffix(batchId)}l${line}`;
}

export function answeredLine(batchId: string, line: number, customId: string, status: number, body: unknown): OutputLine {
  return { id: outputLineId(batchId, line), custom_id: customId, response: { status_code: status, request_id: lineRequestId(batchId, line).slice(4), body }, error: null };
}

export function unansweredLine(batchId: string, line: number, customId: string, code: string, message: string): OutputLine {
  return { id: outputLineId(batchId, line), custom_id: customId, response: null, error: { code, message } };
}

const count = (v: unknown): number => (Number.isSafeInteger(v) && (v as number) >= 0 ? v as number : 0);

/**
 * The tokens of an answered line, from its answer's `usage` (chat and legacy completions:
 * prompt_tokens, completion_tokens and their details), for the batch's sums (OpenAI's batch
 * `usage`); what is absent or not a count counts 0.
 */
export function lineTokens(body: unknown): q.LineTokens {
  type Details = { cached_tokens?: unknown; reasoning_tokens?: unknown } | null | undefined;
  const u = (body as { usage?: { prompt_tokens?: unknown; completion_tokens?: unknown; prompt_tokens_details?: Details; completion_tokens_details?: Details } | null } | null)?.usage;
  return {
    input: count(u?.prompt_tokens), cached: count(u?.prompt_tokens_details?.cached_tokens),
    output: count(u?.completion_tokens), reasoning: count(u?.completion_tokens_details?.reasoning_tokens),
  };
}

/** Queue the finalizer when every line has ended (in the transaction that ended the last). */
export async function finalizeIfDone(ctx: Ctx, tx: DbOrTx, batchId: string, counted: q.Counted | undefined): Promise<void> {
  if (counted && counted.ended >= counted.total && (counted.status === 'PROGRESS' || counted.status === 'CANCELLING')) {
    await ctx.jobs.enqueue(BATCH_JOBS.finalize, { batchId }, { tx });
  }
}

/** Start the lines of a chunk (see store claimLines). */
export function startLines(ctx: Ctx, batchId: string, from: number, to: number) {
  return q.claimLines(ctx.db, batchId, from, to, ctx.clock.nowMs());
}

export type MayStart = 'yes' | 'cancelled' | 'expired' | AppError;

/**
 * Whether a claimed line may start now: not once its batch is cancelling or past its
 * window; and, as for an interactive call, not once the creating key is revoked, its member
 * disabled or its team suspended (the refusal the key would get, recorded as the line's answer).
 */
export async function mayStart(ctx: Ctx, batchId: string): Promise<MayStart> {
  const gate = await q.batchGate(ctx.db, batchId);
  if (gate?.status === 'CANCELLING') return 'cancelled';
  if (gate?.status !== 'PROGRESS' || ctx.clock.nowMs() >= gate.expiresAtMs) return 'expired';
  // a batch created through a person's console session runs while the person's member may (the session may end first, as a browser closes)
  const keyActive = gate.keyStatus === 'active' || (gate.keyStatus === null && isSessionRef(gate.keyId));
  if (!keyActive || gate.memberStatus !== 'active') return creatorKeyRevoked();
  if (gate.teamStatus !== 'active') return creatorSuspended();
  return 'yes';
}

/** End running lines (of any batches) in one transaction; a batch whose last line ended gets its finalizer. */
export async function endLines(ctx: Ctx, tx: DbOrTx, lines: q.EndedLine[], nowMs: number): Promise<void> {
  for (const counted of await q.endLines(tx, lines, nowMs)) await finalizeIfDone(ctx, tx, counted.id, counted);
}
