// The handlers of the batch jobs (catalog.ts): validation, one line through the model
// pipeline, the finalizer and the expiry pass. A line is the same call as an interactive one
// (gateway.run: policy, context, budget admission, metering, durable usage) made for the key
// that created the batch, with the line's fixed request id and the batch prices
// (gateway/admission.ts BatchLine). Rules in domain/batches/README.md.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Ctx } from '../domain/context.ts';
import type { Gateway } from '../gateway/gateway.ts';
import type { FileService } from '../domain/files/files.ts';
import type { Role } from '../domain/roles.ts';
import type { BlobStore } from '../store/blobs/index.ts';
import { validateBatch } from '../domain/batches/validate.ts';
import { finalizeBatch, expireBatches } from '../domain/batches/finalize.ts';
import { answeredLine, endLine, lineRequestId, startLine, unansweredLine } from '../domain/batches/lines.ts';
import { AppError } from '../lib/errors.ts';
import { errorPayload, toAppError } from '../http/plugins/errors.ts';
import { CATALOG, type PayloadOf } from './catalog.ts';
import type { JobHandler, JobRunner } from './runner.ts';
import { checkBatchBody, pipelineEndpoint } from './batch-body.ts';

export interface BatchJobDeps {
  ctx: Ctx;
  gateway: Gateway;
  files: FileService;
  blobs: BlobStore;
  jobs: JobRunner;
}

/** Failures a later attempt may not meet: the upstream or a dependency away. */
const RETRYABLE = new Set(['SERVICE_NOT_AVAILABLE', 'UNKNOWN']);
/** Refusals of the batch token budget: the line waits its turn, as long as the batch lives. */
const THROTTLED = new Set(['RATE_LIMIT_EXCEEDED', 'TOKEN_LIMIT_EXCEEDED']);

export function registerBatchJobs(d: BatchJobDeps, opts: { concurrency: number }): void {
  const { ctx, jobs } = d;
  jobs.handle('batch.validate', (job) => validateBatch({
    ctx, blobs: d.blobs, jobs, checkBody: checkBatchBody,
    callableModels: async (p) => new Set((await d.gateway.admission.visibleModels(p)).map((m) => m.id)),
  }, job.payload.batchId, job.signal, job.completeWith));
  jobs.handle('batch.line', batchLineHandler(d), { concurrency: opts.concurrency });
  jobs.handle('batch.finalize', (job) => finalizeBatch({ ctx, files: d.files, jobs }, job.payload.batchId, job.completeWith));
  jobs.handle('batches.expire', async (job) => {
    await expireBatches({ ctx, files: d.files, jobs }, job.signal);
  });
}

function batchLineHandler(d: BatchJobDeps): JobHandler<PayloadOf<'batch.line'>> {
  const { ctx, jobs } = d;
  const lastAttempt = CATALOG['batch.line'].retry.maxAttempts;
  return async (job) => {
    const { batchId, line } = job.payload;
    const l = await startLine(ctx, batchId, line);
    if (!l) return; // ended already, or its batch no longer starts lines (cancel and expiry end those)
    const principal = { teamId: l.teamId, memberId: l.memberId, keyId: l.keyId, role: l.role as Role };
    let status: number;
    let body: unknown;
    let expired = false;
    for (;;) {
      try {
        const answer = await d.gateway.run({
          endpoint: pipelineEndpoint(l.endpoint), principal, body: l.body, signal: job.signal, batch: { requestId: lineRequestId(batchId, line) },
        });
        if (answer.kind !== 'json') throw new Error('a batch line was answered as a stream'); // validation refuses stream: true
        status = 200;
        body = answer.body;
        break;
      } catch (e) {
        if (job.signal.aborted) throw e; // lease lost or stopping: the line is started again
        if (e instanceof AppError && THROTTLED.has(e.reason)) {
          const waitMs = Number(e.metadata.retryAfterMs ?? 1000);
          if (ctx.clock.nowMs() + waitMs < l.expiresAtMs) {
            await sleep(waitMs, undefined, { signal: job.signal });
            continue;
          }
          expired = true; // its turn would come after the window closed
          status = 0;
          break;
        }
        const err = toAppError(e, 'llm');
        if (RETRYABLE.has(err.reason) && job.attempt < lastAttempt) throw e; // the runner starts it again after its backoff
        status = err.status;
        body = errorPayload(err, 'llm');
        break;
      }
    }
    const result = expired
      ? unansweredLine(batchId, line, l.customId, 'batch_expired', 'this request could not be executed before the completion window expired')
      : answeredLine(batchId, line, l.customId, status, body);
    const state = expired ? 'expired' : status < 300 ? 'succeeded' : 'failed';
    await job.completeWith((tx) => endLine(tx, jobs, batchId, line, state, result, ctx.clock.nowMs()).then(() => undefined));
  };
}
