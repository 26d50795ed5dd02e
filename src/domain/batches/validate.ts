// VALIDATING: the input file is read from the blob store line by line (memory: one line and
// the set of custom ids) and every request checked: JSON object, `custom_id` present and
// unique, `method` POST and `url` the batch's endpoint when given (compat.md: both optional),
// a `body` valid for the endpoint (the route's schema and the gateway's request rules), not
// streamed, one model for the whole file, and that model callable by the creating key
// (available, inside its policy, enabled for the team). Good lines are stored as they are
// read; a bad file fails the batch with `errors` naming each line (at most MAX_ERRORS), and
// its stored lines are removed. Safe to run again: lines already stored are kept as they are.
import { createInterface } from 'node:readline';
import type { Ctx } from '../context.ts';
import type { Principal, Role } from '../roles.ts';
import type { BlobStore } from '../../store/blobs/index.ts';
import * as q from '../../store/batches.ts';
import { findFile } from '../../store/files.ts';
import type { Tx } from '../../store/db.ts';
import type { BatchErrors } from './view.ts';
import { announceBatchEnd } from './webhooks.ts';
import { jsonTooDeep, MAX_JSON_DEPTH } from '../../lib/json-depth.ts';
import { BATCH_JOBS } from './jobs.ts';

/** A body's first problem for an endpoint: the parameter (`body.messages`…) and why; undefined when valid. */
export type CheckBody = (endpoint: string, body: Record<string, unknown>) => { param: string; message: string } | undefined;
/** The ids of the models a key may call now. */
export type CallableModels = (p: Principal) => Promise<Set<string>>;

export interface ValidateDeps {
  ctx: Ctx;
  blobs: BlobStore;
  checkBody: CheckBody;
  callableModels: CallableModels;
  /** lines per batch.lines job */
  chunkLines: number;
}

const MAX_ERRORS = 100;
const INSERT_CHUNK = 500;
const MAX_CUSTOM_ID = 512;

type LineError = BatchErrors['data'][number];

export function principalOfBatch(b: q.BatchRow): Principal {
  return { teamId: b.teamId, memberId: b.memberId, keyId: b.keyId, role: b.role as Role };
}

/**
 * Validate the batch's file. `complete` commits the batch's next state with the job's
 * completion (jobs/README.md: effects once).
 */
export async function validateBatch(d: ValidateDeps, batchId: string, signal: AbortSignal, complete: (fn: (tx: Tx) => Promise<void>) => Promise<void>): Promise<void> {
  const { ctx } = d;
  const b = await q.findBatchById(ctx.db, batchId);
  if (b?.status !== 'VALIDATING') return; // cancelled or expired meanwhile: the finalizer or the expiry ends it
  const errors: LineError[] = [];
  const fail = (e: LineError) => {
    if (errors.length < MAX_ERRORS) errors.push(e);
  };
  const file = await findFile(ctx.db, b.teamId, b.inputFileId, ctx.clock.nowMs());
  let model: { id: string; line: number } | undefined;
  let requests = 0;
  if (!file) {
    fail({ code: 'file_not_found', message: `input file ${b.inputFileId} no longer exists`, param: 'input_file_id', line: null });
  } else {
    const ids = new Set<string>();
    let pending: q.NewLine[] = [];
    const flush = async () => {
      if (!errors.length) await q.insertLines(ctx.db, batchId, pending, ctx.clock.nowMs());
      pending = [];
    };
    const input = createInterface({ input: await d.blobs.get(file.blobKey), crlfDelay: Number.POSITIVE_INFINITY });
    let lineNo = 0;
    for await (const text of input) {
      lineNo++;
      if (signal.aborted) throw new Error('validation stopped');
      if (text.trim() === '') continue;
      requests++;
      const problem = checkLine(d, b.endpoint, text, lineNo, ids, model);
      if ('code' in problem) {
        fail(problem);
        continue;
      }
      model ??= { id: problem.model, line: lineNo };
      pending.push({ line: lineNo, customId: problem.customId, body: problem.body });
      if (pending.length >= INSERT_CHUNK) await flush();
    }
    await flush();
    if (model && !errors.length && !(await d.callableModels(principalOfBatch(b))).has(model.id)) {
      fail({ code: 'model_not_found', message: `line ${model.line}: model ${model.id} does not exist or this API key may not use it`, param: 'body.model', line: model.line });
    }
  }
  const now = ctx.clock.nowMs();
  await complete(async (tx) => {
    if (errors.length) {
      const failed = await q.setBatchStatus(tx, batchId, ['VALIDATING'], {
        status: 'FAILED', errors: { object: 'list', data: errors }, failedAtMs: now, updatedAtMs: now,
      });
      if (failed) await q.deleteLines(tx, batchId);
      await announceBatchEnd(ctx, tx, failed);
      return;
    }
    const started = await q.setBatchStatus(tx, batchId, ['VALIDATING'], { status: 'PROGRESS', inProgressAtMs: now, total: requests, model: model!.id, updatedAtMs: now });
    if (!started) {
      await q.deleteLines(tx, batchId); // cancelled or expired while this ran: nothing starts
      return;
    }
    const lines = await q.lineNumbers(tx, batchId);
    const chunks: { batchId: string; from: number; to: number }[] = [];
    for (let i = 0; i < lines.length; i += d.chunkLines) chunks.push({ batchId, from: lines[i]!, to: lines[Math.min(i + d.chunkLines, lines.length) - 1]! });
    await ctx.jobs.enqueueMany(BATCH_JOBS.lines, chunks, { tx });
  });
}

type Checked = { customId: string; body: Record<string, unknown>; model: string } | LineError;

function checkLine(d: ValidateDeps, endpoint: string, text: string, line: number, ids: Set<string>, model: { id: string } | undefined): Checked {
  const err = (code: string, param: string | null, message: string): LineError => ({ code, message: `line ${line}: ${message}`, param, line });
  // refused at upload (files/jsonl.ts); a file kept from before that is judged the same
  if (jsonTooDeep(text)) return err('invalid_json_line', null, `nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels`);
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return err('invalid_json_line', null, 'not valid JSON');
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return err('invalid_json_line', null, 'must be a JSON object');
  const o = v as Record<string, unknown>;
  if (typeof o.custom_id !== 'string' || o.custom_id === '') return err('missing_required_parameter', 'custom_id', 'custom_id is required (a non-empty string)');
  if (o.custom_id.length > MAX_CUSTOM_ID) return err('invalid_custom_id', 'custom_id', `custom_id is longer than ${MAX_CUSTOM_ID} characters`);
  if (ids.has(o.custom_id)) return err('duplicate_custom_id', 'custom_id', `custom_id ${JSON.stringify(o.custom_id)} is used by an earlier line; each must be unique`);
  ids.add(o.custom_id);
  if (o.method !== undefined && o.method !== 'POST') return err('invalid_method', 'method', 'method must be POST');
  if (o.url !== undefined && o.url !== endpoint) return err('invalid_url', 'url', `url must be the batch's endpoint ${endpoint}`);
  const body = o.body;
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return err('invalid_request', 'body', 'body is required (a JSON object)');
  const b = body as Record<string, unknown>;
  if (typeof b.model !== 'string' || b.model === '') return err('missing_required_parameter', 'body.model', 'body.model is required');
  if (model && b.model !== model.id) return err('mismatched_model', 'body.model', `every line must use one model: ${model.id} came first, this line uses ${b.model}`);
  if (b.stream === true) return err('invalid_request', 'body.stream', 'a batch line cannot be streamed');
  const problem = d.checkBody(endpoint, b);
  if (problem) return err('invalid_request', problem.param, problem.message);
  return { customId: o.custom_id, body: b, model: b.model };
}
