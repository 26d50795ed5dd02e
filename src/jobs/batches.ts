// The handlers of the batch jobs (domain/batches/jobs.ts): validation, a chunk of lines
// through the model pipeline, the finalizer and the expiry pass. A line is the same call as
// an interactive one (gateway.run: policy, context, budget admission, metering, durable
// usage) made for the key that created the batch, with the line's fixed request id and the
// batch prices (gateway/admission.ts BatchLine). Rules in domain/batches/README.md.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Ctx } from '../domain/context.ts';
import type { Gateway } from '../gateway/gateway.ts';
import type { Batches } from '../domain/batches/service.ts';
import type { Role } from '../domain/roles.ts';
import type { BlobStore } from '../store/blobs/index.ts';
import { validateBatch } from '../domain/batches/validate.ts';
import { finalizeBatch, expireBatches } from '../domain/batches/finalize.ts';
import { answeredLine, endLines, lineRequestId, lineTokens, mayStart, startLines, type MayStart } from '../domain/batches/lines.ts';
import { inTransaction } from '../domain/changes.ts';
import { GroupCommit } from '../gateway/group-commit.ts';
import { Slots } from '../lib/slots.ts';
import type { ClaimedLine, EndedLine } from '../store/batches.ts';
import { AppError } from '../lib/errors.ts';
import { errorPayload, toAppError } from '../lib/error-answer.ts';
import type { Config } from '../config.ts';
import type { PayloadOfType } from '../domain/jobs/job-type.ts';
import { BATCH_JOBS } from '../domain/batches/jobs.ts';
import type { Blobs } from '../domain/blobs/links.ts';
import { checkBatchBody, pipelineEndpoint } from './batch-body.ts';
import { handles, type AreaJob, type JobHandler } from './handlers.ts';

export interface BatchJobDeps {
  ctx: Ctx;
  gateway: Gateway;
  batches: Batches;
  blobs: BlobStore;
}

/** Failures a later attempt may not meet: the upstream or a dependency away. */
const RETRYABLE = new Set(['SERVICE_NOT_AVAILABLE', 'UNKNOWN']);
/** How long a batch's status read before a line starts is trusted, ms (real time: it bounds how late a cancel is seen). */
const GATE_MS = 100;
/** Refusals of the batch token budget: the line waits its turn, as long as the batch lives. */
const THROTTLED = new Set(['RATE_LIMIT_EXCEEDED', 'TOKEN_LIMIT_EXCEEDED']);

/** What the batch jobs use: the graph's parts, the batch settings. */
type BatchGraph = { ctx: Ctx; gateway: Gateway; batches: Batches; blobs: Blobs; config: Config };
const deps = (s: BatchGraph): BatchJobDeps => ({ ctx: s.ctx, gateway: s.gateway, batches: s.batches, blobs: s.blobs.store });

function validateHandler(d: BatchJobDeps, chunkLines: number): JobHandler<PayloadOfType<typeof BATCH_JOBS.validate>> {
  return (job) => validateBatch({
    ctx: d.ctx, blobs: d.blobs, checkBody: checkBatchBody, chunkLines,
    callableModels: async (p) => new Set((await d.gateway.admission.visibleModels(p)).map((m) => m.id)),
  }, job.payload.batchId, job.signal, job.completeWith);
}

function batchLinesHandler(d: BatchJobDeps, slots: Slots): JobHandler<PayloadOfType<typeof BATCH_JOBS.lines>> {
  const { ctx } = d;
  const lastAttempt = BATCH_JOBS.lines.retry.maxAttempts;
  // Lines' results are committed as they end, many lines (of any chunks) per transaction.
  const ended = new GroupCommit<EndedLine>(
    (items) => inTransaction(ctx, (tx) => endLines(ctx, tx, items, ctx.clock.nowMs())),
    (one) => inTransaction(ctx, (tx) => endLines(ctx, tx, [one], ctx.clock.nowMs())),
  );
  // Whether a line may start, read at most every GATE_MS per batch: many lines start per
  // second, and a cancel or the window's end is seen within that.
  const gates = new Map<string, { at: number; may: Promise<MayStart> }>();
  const gate = (batchId: string) => {
    const now = performance.now();
    let g = gates.get(batchId);
    if (!g || now - g.at > GATE_MS) {
      if (gates.size > 1000) gates.clear();
      g = { at: now, may: mayStart(ctx, batchId) };
      gates.set(batchId, g);
    }
    return g.may;
  };
  return async (job) => {
    const { batchId, from, to } = job.payload;
    let again = 0;
    const run = async (l: ClaimedLine): Promise<void> => {
      await slots.acquire(job.signal);
      let out: EndedLine | undefined;
      try {
        const may = await gate(batchId); // no new line starts once the batch is cancelling or past its window, or its key revoked
        out = may === 'yes' ? await runLine(d, job.signal, batchId, l, job.attempt < lastAttempt)
          : may instanceof AppError ? { batchId, line: l.line, state: 'failed', result: answeredLine(batchId, l.line, l.customId, may.status, errorPayload(may, 'llm')) }
          : { batchId, line: l.line, state: may, result: null };
      } finally {
        slots.release(); // the upstream's part is done: the commit below need not hold a slot
      }
      if (out) await ended.add(out);
      else again++;
    };
    await Promise.all((await startLines(ctx, batchId, from, to)).map(run));
    // Lines met a failure that may pass: this chunk runs again after its backoff, and only
    // its lines still running start again.
    if (again) throw new Error(`${again} line(s) of ${batchId} ${from}-${to} failed in a way that may pass; retried`);
  };
}

/** One line through the pipeline: its end, or undefined when it should run again later. */
async function runLine(d: BatchJobDeps, signal: AbortSignal, batchId: string, l: ClaimedLine, mayRetry: boolean): Promise<EndedLine | undefined> {
  const principal = { teamId: l.teamId, memberId: l.memberId, keyId: l.keyId, role: l.role as Role };
  for (;;) {
    try {
      const answer = await d.gateway.run({
        endpoint: pipelineEndpoint(l.endpoint), principal, body: l.body, signal, batch: { requestId: lineRequestId(batchId, l.line) },
      });
      if (answer.kind !== 'json') throw new Error('a batch line was answered as a stream'); // validation refuses stream: true
      return { batchId, line: l.line, state: 'succeeded', result: answeredLine(batchId, l.line, l.customId, 200, answer.body), tokens: lineTokens(answer.body) };
    } catch (e) {
      if (signal.aborted) throw e; // lease lost or stopping: the line is started again
      if (e instanceof AppError && THROTTLED.has(e.reason)) {
        const waitMs = Number(e.metadata.retryAfterMs ?? 1000);
        if (d.ctx.clock.nowMs() + waitMs >= l.expiresAtMs) {
          // its turn would come after the window closed
          return { batchId, line: l.line, state: 'expired', result: null };
        }
        await sleep(waitMs, undefined, { signal });
        continue;
      }
      const err = toAppError(e, 'llm');
      if (RETRYABLE.has(err.reason) && mayRetry) return undefined;
      return { batchId, line: l.line, state: 'failed', result: answeredLine(batchId, l.line, l.customId, err.status, errorPayload(err, 'llm')) };
    }
  }
}

/** The batches area's jobs (an entry of src/areas.ts). */
export const batchesJobs: AreaJob<BatchGraph>[] = [
  handles(BATCH_JOBS.validate, (s: BatchGraph) => ({ handler: validateHandler(deps(s), s.config.batches.chunkLines) })),
  // Enough chunks held to keep every line slot busy while a finished chunk is replaced by the
  // next (its claim waits for the runner's next pass).
  handles(BATCH_JOBS.lines, (s: BatchGraph) => {
    const { concurrency, chunkLines } = s.config.batches;
    return { handler: batchLinesHandler(deps(s), new Slots(concurrency)), concurrency: Math.ceil(concurrency / chunkLines) + 2 };
  }),
  handles(BATCH_JOBS.finalize, (s: BatchGraph) => ({ handler: (job) => finalizeBatch(s.batches, job.payload.batchId, job.completeWith) })),
  handles(BATCH_JOBS.expire, (s: BatchGraph) => ({
    handler: async (job) => {
      await expireBatches(s.batches, job.signal);
    },
  })),
];
