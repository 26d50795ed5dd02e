// Async media tasks (/v3/async; compat.md "Media and async tasks"; rules in ./README.md).
// A task is a row and a durable job (media.task): created QUEUED with its worst case admitted
// and held (the one spend admission, a hold of the task's cost), run by the job (PROCESSING),
// and ended in ONE place, `endTaskTx`, in the transaction that completes the job: SUCCEED
// charges the hold to the ledger (category media), FAILED gives it back. That is also where
// the end is announced, in the same transaction: `task.succeeded` / `task.failed` to the
// team's webhook endpoints, and `{event_type: "ASYNC_TASK_RESULT", payload: <task result>}`
// to the task's own extra.webhook.url (domain/webhooks/enqueue.ts). The image edits are
// tasks too, run by their request instead of the job (runImageEdit), ended in the same place.
import type { Ctx } from '../context.ts';
import type { Principal } from '../roles.ts';
import type { SpendAdmission } from '../spend/admission.ts';
import type { MediaConfig } from '../../config.ts';
import type { Tx } from '../../store/db.ts';
import { bad, taskNotFound } from './errors.ts';
import { newId } from '../../lib/ids.ts';
import type { BlobLinks, BlobStore } from '../../store/blobs/index.ts';
import * as q from '../../store/media.ts';
import { inTransaction } from '../changes.ts';
import { setHoldTx } from '../spend/holds.ts';
import { enqueueWebhook } from '../webhooks/enqueue.ts';
import { checkWebhookUrl } from '../webhooks/endpoints.ts';
import { ASYNC_TASK_RESULT } from '../webhooks/codes.ts';
import { lockTeamOrThrow, postLockedTx } from '../billing/ledger.ts';
import { BILLING_METHOD } from '../billing/codes.ts';
import { encodePng } from '../../lib/png.ts';
import { type ImageEdit, MEDIA_BILL_CATEGORY, opOfType, TASK_TYPES, type TaskStatus, type TaskType } from './codes.ts';
import { checkTxt2Img, imagesCostMicro, type Txt2ImgRequest, type Txt2ImgTask } from './txt2img.ts';
import { charCount, checkTxt2Speech, txt2SpeechCostMicro, type Txt2SpeechRequest, type Txt2SpeechTask } from './txt2speech.ts';
import { checkImg2Img, checkInpainting, type CheckedImageTask, type Img2ImgRequest, type InpaintingRequest } from './img2img.ts';
import { checkUpscale, type UpscaleRequest } from './upscale.ts';
import { checkImageEdit, renderImageEdit, type ImageEditBody } from './image-edits.ts';
import { decodeImageInputs, type ImageInput } from './image-input.ts';
import type { Rgba } from '../../lib/png-decode.ts';
import { checkImageBackend } from './image-backends.ts';
import { MEDIA_JOBS } from './jobs.ts';

export interface WebhookSpec {
  url: string;
  test_mode?: { enabled?: boolean | undefined; return_task_status?: string | undefined } | undefined;
}

/** The client's `extra` (kept on the task): response types and the per-task webhook. */
export interface TaskExtra {
  response_image_type?: string | undefined;
  response_audio_type?: string | undefined;
  enable_nsfw_detection?: boolean | undefined;
  webhook?: WebhookSpec | undefined;
}

export interface TaskResult {
  extra: Record<string, unknown>;
  task: { task_id: string; status: TaskStatus; reason: string; task_type: string; eta: number; progress_percent: number };
  images: { image_url: string; image_url_ttl: number; image_type: string; nsfw_detection_result: null }[];
  videos: never[];
  audios: { audio_url: string; audio_url_ttl: number; audio_type: string }[];
}

/** A task in the team's listing: its result, when it was created and ended (Unix seconds), and what was asked. */
export interface ListedTask extends TaskResult {
  created_at: number;
  ended_at: number | null;
  /** what the task was asked for, for the team to recognise it (the console's list) */
  input: TaskInput;
}

/** The asked-for part of a task's request: txt2img's checkpoint and prompts, txt2speech's voice and texts. */
export type TaskInput =
  | { model_name: string; prompt: string; negative_prompt: string }
  | { voice_id: string; language: string; texts: string[] };

export interface TaskPage {
  tasks: ListedTask[];
  pagination: { next_cursor: string };
}

export const DEFAULT_TASK_PAGE = 20;
export const MAX_TASK_PAGE = 100;
/** The cursor names the last task of the page before (`t_<task id>`); clients treat it as opaque. */
const TASK_CURSOR = /^t_(task_[0-9a-z]{22})$/;

export type TaskOutput = { kind: 'image' | 'audio'; key: string; type: string };

export type TaskOutcome = { ok: true; outputs: TaskOutput[] } | { ok: false; reason: string };

/** The media tasks' context: the store, the spend admission, where outputs go and their signed links, the settings. */
export interface MediaTasks {
  ctx: Ctx;
  spend: SpendAdmission;
  blobs: { store: BlobStore; links: BlobLinks };
  config: MediaConfig;
  /** GANTRY_WEBHOOK_ALLOW_PRIVATE: whether extra.webhook.url may name a private address */
  webhooksAllowPrivate: boolean;
}

const ENDED: readonly string[] = ['TASK_STATUS_SUCCEED', 'TASK_STATUS_FAILED'];

function checkExtra(extra: TaskExtra | undefined, type: TaskType, allowPrivate: boolean): TaskExtra {
  const e = extra ?? {};
  if (type !== TASK_TYPES.txt2speech && e.response_image_type !== undefined && e.response_image_type !== 'png') {
    throw bad('extra.response_image_type', 'png (the one type Gantry writes)');
  }
  if (type === TASK_TYPES.txt2speech && e.response_audio_type !== undefined && e.response_audio_type !== 'wav') {
    throw bad('extra.response_audio_type', 'wav (the one type Gantry writes)');
  }
  const w = e.webhook;
  if (w) {
    checkWebhookUrl('extra.webhook.url', w.url, allowPrivate);
    const status = w.test_mode?.return_task_status;
    if (w.test_mode?.enabled && !ENDED.includes(status ?? '')) {
      throw bad('extra.webhook.test_mode.return_task_status', `${ENDED.join(' or ')} when test_mode is enabled`);
    }
  }
  return e;
}

export async function createTxt2ImgTask(tasks: MediaTasks, p: Principal, body: { request: Txt2ImgRequest; extra?: TaskExtra | undefined }): Promise<{ task_id: string }> {
  const extra = checkExtra(body.extra, TASK_TYPES.txt2img, tasks.webhooksAllowPrivate);
  const task = await checkTxt2Img(tasks.ctx, p, body.request);
  const cost = imagesCostMicro(task, tasks.config.imagePriceUnits);
  return startTask(tasks, p, TASK_TYPES.txt2img, task, extra, cost, `${task.image_num} image(s) of ${task.model_name}`);
}

type ImageTaskBody =
  | { op: 'img2img'; request: Img2ImgRequest }
  | { op: 'inpainting'; request: InpaintingRequest }
  | { op: 'upscale'; request: UpscaleRequest };

/** img2img, inpainting, upscale: checked (the source images' headers), admitted, the sources decoded (judged), stored with the task. */
export async function createImageTask(tasks: MediaTasks, p: Principal, body: ImageTaskBody & { extra?: TaskExtra | undefined }): Promise<{ task_id: string }> {
  checkImageBackend(tasks.config.imageUpstream, body.op);
  const type = TASK_TYPES[body.op];
  const extra = checkExtra(body.extra, type, tasks.webhooksAllowPrivate);
  const checked: CheckedImageTask<{ model_name: string; image_num: number }> = body.op === 'img2img'
    ? await checkImg2Img(tasks.ctx, p, body.request)
    : body.op === 'inpainting' ? await checkInpainting(tasks.ctx, p, body.request) : await checkUpscale(tasks.ctx, p, body.request);
  const cost = imagesCostMicro(checked.task, tasks.config.imagePriceUnits);
  const judge = async () => { await decodeImageInputs(checked.inputs); };
  return startTask(tasks, p, type, checked.task, extra, cost, `${body.op}: ${checked.task.image_num} image(s)`, { inputs: bytesOf(checked.inputs), judge });
}

/** How long an image edit's request may run before its safety job fails the task (the request died with its process). */
export const EDIT_WATCH_MS = 10 * 60_000;

/**
 * An image edit, answered with its image while the request waits, and a task all the same:
 * admitted and held like the others, written PROCESSING with a job due in EDIT_WATCH_MS (if
 * the process dies now, that job fails the task, unbilled), then rendered here and ended
 * here: the charge, the announcement and the result at /v3/async/task-result as for any task.
 */
export async function runImageEdit(tasks: MediaTasks, p: Principal, op: ImageEdit, body: ImageEditBody & { extra?: TaskExtra | undefined }): Promise<{ image_file: string; image_type: string; task_id: string }> {
  checkImageBackend(tasks.config.imageUpstream, op);
  const type = TASK_TYPES[op];
  if (body.extra?.webhook) throw bad('extra.webhook', `${op} answers with its image: it takes no webhook`);
  const extra = checkExtra(body.extra, type, tasks.webhooksAllowPrivate);
  const checked = checkImageEdit(op, body);
  const cost = imagesCostMicro(checked.task, tasks.config.imagePriceUnits);
  let images: Record<string, Rgba> = {};
  const judge = async () => { images = await decodeImageInputs(checked.inputs); };
  const { task_id } = await startTask(tasks, p, type, { ...checked.task, inline: true }, extra, cost, `${op}: 1 image`, { inline: true, judge });
  let png: Buffer;
  let outputs: TaskOutput[];
  try {
    const img = await renderImageEdit(op, checked.task, images);
    png = await encodePng(img.width, img.height, img.data, 4);
    const key = taskBlobKey(p.teamId, task_id, '0.png');
    await tasks.blobs.store.put(key, once(png), { contentType: 'image/png' });
    outputs = [{ kind: 'image', key, type: 'png' }];
  } catch (err) {
    await inTransaction(tasks.ctx, (tx) => endTaskTx(tasks, tx, task_id, { ok: false, reason: `${op} failed: ${(err as Error).message}` }));
    throw err;
  }
  await inTransaction(tasks.ctx, (tx) => endTaskTx(tasks, tx, task_id, { ok: true, outputs }));
  return { image_file: png.toString('base64'), image_type: 'png', task_id };
}

/** Why the safety job of an image edit fails it: the request that ran it ended before it did. */
export const EDIT_LOST = 'the request running this edit ended before the edit did (its process stopped): nothing was charged';

/** Where a task's blobs go: its outputs (`0.png`…) and its stored inputs (`in-<name>.png`). */
export const taskBlobKey = (teamId: string, taskId: string, name: string) => `media/tasks/${teamId}/${taskId}/${name}`;

/** Bytes as the blob store takes them (a stream of one chunk). */
export async function* once(b: Buffer): AsyncGenerator<Uint8Array> {
  yield b;
}

export async function createTxt2SpeechTask(tasks: MediaTasks, p: Principal, body: { request: Txt2SpeechRequest; extra?: TaskExtra | undefined }): Promise<{ task_id: string }> {
  const extra = checkExtra(body.extra, TASK_TYPES.txt2speech, tasks.webhooksAllowPrivate);
  const task = checkTxt2Speech(body.request);
  const cost = txt2SpeechCostMicro(task, tasks.config.ttsPricePerMCharsUnits);
  return startTask(tasks, p, TASK_TYPES.txt2speech, task, extra, cost, `${charCount(task.texts)} characters of speech`);
}

/**
 * Test mode ends the task at once with the status asked for (nothing runs, nothing is
 * charged) and announces it. Otherwise the cost is admitted and held, the row written and
 * the job queued in one transaction.
 */
async function startTask(tasks: MediaTasks, p: Principal, type: TaskType, request: object, extra: TaskExtra, costMicro: bigint, what: string, o: StartOptions = {}): Promise<{ task_id: string }> {
  const { ctx } = tasks;
  const now = ctx.clock.nowMs();
  const id = newId('task', now);
  const inputs = Object.entries(o.inputs ?? {}).map(([name, bytes]) => ({ key: taskBlobKey(p.teamId, id, `in-${name}.png`), name, bytes }));
  const row: q.NewMediaTaskRow = {
    id, teamId: p.teamId, memberId: p.memberId, keyId: p.keyId, taskType: type, status: o.inline ? 'TASK_STATUS_PROCESSING' : 'TASK_STATUS_QUEUED',
    request: inputs.length ? { ...request, inputs: Object.fromEntries(inputs.map((i) => [i.name, i.key])) } : request,
    extra, costMicro, createdAtMs: now, updatedAtMs: now,
  };
  const test = extra.webhook?.test_mode;
  if (test?.enabled) {
    await inTransaction(ctx, async (tx) => {
      await q.insertMediaTask(tx, { ...row, costMicro: 0n });
      await endTaskTx(tasks, tx, row.id, test.return_task_status === 'TASK_STATUS_SUCCEED'
        ? { ok: true, outputs: [] } : { ok: false, reason: 'test mode: the task was asked to fail' });
    });
    return { task_id: row.id };
  }
  const payer = { teamId: p.teamId, memberId: p.memberId, keyId: p.keyId };
  await tasks.spend.withReservation(payer, costMicro, what, async () => {
    await o.judge?.(); // the expensive checks once the cost is reserved (a team that cannot pay makes no work), before anything is written
    // the sources first: a task row never names an input that is not stored
    for (const i of inputs) await tasks.blobs.store.put(i.key, once(i.bytes), { contentType: 'image/png' });
    try {
      await inTransaction(ctx, async (tx) => {
        await q.insertMediaTask(tx, row);
        if (costMicro > 0n) await setHoldTx(tx, { ownerId: row.id, payer }, costMicro, now);
        await ctx.jobs.enqueue(MEDIA_JOBS.task, { taskId: row.id }, { tx, ...(o.inline ? { delayMs: EDIT_WATCH_MS } : {}) });
      });
    } catch (err) {
      for (const i of inputs) await tasks.blobs.store.delete(i.key).catch(() => undefined);
      throw err;
    }
  });
  return { task_id: row.id };
}

interface StartOptions {
  /** source images to store with the task (name → PNG bytes); the stored request names their keys in `inputs` */
  inputs?: Record<string, Buffer> | undefined;
  /** the request runs the task itself (an image edit): PROCESSING at once, its job only a safety net */
  inline?: boolean | undefined;
  /**
   * What judges the request's inputs at their expense (decoding its images): run once the
   * cost is reserved, before anything is written; what it throws refuses the request, and
   * the reservation goes back. Test mode runs nothing, this included.
   */
  judge?: (() => Promise<void>) | undefined;
}

/** The bytes of the inputs, to store with the task. */
function bytesOf(inputs: Record<string, ImageInput>): Record<string, Buffer> {
  return Object.fromEntries(Object.entries(inputs).map(([name, i]) => [name, i.png]));
}

/** The blob keys of a task's stored inputs. */
export function taskInputKeys(row: q.MediaTaskRow): string[] {
  return Object.values((row.request as { inputs?: Record<string, string> }).inputs ?? {});
}

/** The task as the job sees it; undefined when gone or ended. */
export async function findOpenTask(tasks: MediaTasks, id: string): Promise<q.MediaTaskRow | undefined> {
  const row = await q.findMediaTask(tasks.ctx.db, id);
  return row && row.endedAtMs === null ? row : undefined;
}

/** The job started it (a rerun after a crash starts it again): PROCESSING. */
export async function markTaskProcessing(tasks: MediaTasks, id: string, progressPercent: number): Promise<void> {
  await q.updateOpenTask(tasks.ctx.db, id, { status: 'TASK_STATUS_PROCESSING', progressPercent, updatedAtMs: tasks.ctx.clock.nowMs() });
}

/**
 * THE end of a task, inside the transaction that completes its job: the row ends (once: a
 * task already ended is left alone), success charges what was held, failure releases it,
 * and the end is announced.
 */
export async function endTaskTx(tasks: MediaTasks, tx: Tx, id: string, outcome: TaskOutcome): Promise<void> {
  const now = tasks.ctx.clock.nowMs();
  const row = await q.lockMediaTask(tx, id);
  if (!row || row.endedAtMs !== null) return;
  const payer = { teamId: row.teamId, memberId: row.memberId, keyId: row.keyId };
  if (outcome.ok && row.costMicro > 0n) {
    const team = await lockTeamOrThrow(tx, row.teamId);
    const request = row.request as Record<string, unknown>;
    await postLockedTx(tx, team, [{
      teamId: row.teamId, kind: 'charge', amountMicro: row.costMicro, idempotencyKey: `media-task:${row.id}`,
      category: MEDIA_BILL_CATEGORY, billingMethod: BILLING_METHOD.payAsYouGo,
      productId: opOfType(row.taskType) ?? row.taskType,
      productName: String(request.model_name ?? request.voice_id ?? opOfType(row.taskType) ?? row.taskType),
      ownerId: row.id, memberId: row.memberId, keyId: row.keyId, detail: { task_id: row.id, task_type: row.taskType },
    }], now);
  }
  if (row.costMicro > 0n) await setHoldTx(tx, { ownerId: row.id, payer }, 0n, now);
  const ended = {
    status: (outcome.ok ? 'TASK_STATUS_SUCCEED' : 'TASK_STATUS_FAILED') as TaskStatus, reason: outcome.ok ? '' : outcome.reason.slice(0, 1000),
    outputs: outcome.ok ? outcome.outputs : [], progressPercent: 100, updatedAtMs: now, endedAtMs: now,
  };
  await q.updateOpenTask(tx, row.id, ended);
  await announceTaskEndTx(tasks, tx, { ...row, ...ended });
}

/** The end of a task, to the team's endpoints (task.succeeded / task.failed) and to the task's own URL. */
async function announceTaskEndTx(tasks: MediaTasks, tx: Tx, row: q.MediaTaskRow): Promise<void> {
  const result = taskResultView(tasks, row);
  const event = row.status === 'TASK_STATUS_SUCCEED' ? 'task.succeeded' : 'task.failed';
  await enqueueWebhook(tasks.ctx, { teamId: row.teamId, event, payload: result }, { tx });
  const url = (row.extra as TaskExtra).webhook?.url;
  if (url) {
    await enqueueWebhook(tasks.ctx, { teamId: row.teamId, event: ASYNC_TASK_RESULT, url, payload: { event_type: ASYNC_TASK_RESULT, payload: result } }, { tx });
  }
}

/** Fail the tasks whose job ended without ending them (jobs/media-tasks.ts sweep). Returns how many. */
export async function failStrandedTasks(tasks: MediaTasks, signal?: AbortSignal): Promise<number> {
  let n = 0;
  for (;;) {
    const rows = await q.strandedTasks(tasks.ctx.db, MEDIA_JOBS.task.name, 100);
    for (const r of rows) {
      if (signal?.aborted) return n;
      const reason = `the task could not be run: its job failed${r.lastError ? ` (${r.lastError})` : ''}`;
      await inTransaction(tasks.ctx, (tx) => endTaskTx(tasks, tx, r.id, { ok: false, reason }));
      n++;
    }
    if (rows.length < 100) return n;
  }
}

/**
 * Remove tasks ended more than GANTRY_MEDIA_TASK_TTL_DAYS ago: their outputs' bytes, then
 * the row (a crash between leaves a row the next pass finishes: deletes are idempotent).
 */
export async function pruneEndedTasks(tasks: MediaTasks, signal?: AbortSignal): Promise<number> {
  let n = 0;
  for (;;) {
    const rows = await q.endedTasksBefore(tasks.ctx.db, tasks.ctx.clock.nowMs() - tasks.config.taskTtlMs, 100);
    for (const r of rows) {
      if (signal?.aborted) return n;
      for (const key of [...r.outputs.map((o) => o.key), ...taskInputKeys(r)]) await tasks.blobs.store.delete(key);
      await q.deleteMediaTask(tasks.ctx.db, r.id);
      n++;
    }
    if (rows.length < 100) return n;
  }
}

/** GET /v3/async/task-result: the team's task (another team's is not found). */
export async function getTaskResult(tasks: MediaTasks, p: Principal, id: string): Promise<TaskResult> {
  const row = await q.findMediaTask(tasks.ctx.db, id);
  if (!row || row.teamId !== p.teamId) throw taskNotFound(id);
  return taskResultView(tasks, row);
}

/**
 * GET /v3/async/tasks (Gantry's extension): the team's tasks, newest first, keyset paged on
 * the task id (time-sortable), each as its task result plus when it was created and ended.
 */
export async function listMediaTasks(tasks: MediaTasks, p: Principal, query: { limit?: number | undefined; cursor?: string | undefined; status?: string | undefined }): Promise<TaskPage> {
  const limit = query.limit ?? DEFAULT_TASK_PAGE;
  let beforeId: string | undefined;
  if (query.cursor) {
    const m = TASK_CURSOR.exec(query.cursor);
    if (!m) throw bad('cursor', 'not a cursor this listing gave: pass next_cursor of the previous page, or nothing');
    beforeId = m[1];
  }
  const rows = await q.listTeamTasks(tasks.ctx.db, { teamId: p.teamId, beforeId, status: query.status, limit: limit + 1 });
  const page = rows.slice(0, limit);
  return {
    tasks: page.map((r) => ({
      ...taskResultView(tasks, r), created_at: Math.floor(r.createdAtMs / 1000), ended_at: r.endedAtMs === null ? null : Math.floor(r.endedAtMs / 1000),
      input: taskInput(r),
    })),
    pagination: { next_cursor: rows.length > limit ? `t_${page.at(-1)!.id}` : '' },
  };
}

/** What a task was asked for (its request as checked: the model resolved, defaults filled). */
function taskInput(row: q.MediaTaskRow): TaskInput {
  if (row.taskType !== TASK_TYPES.txt2speech) {
    // an image task; upscale and the edits have no prompt, and the edits no model: their operation stands for it
    const r = row.request as Partial<Txt2ImgTask>;
    return { model_name: r.model_name ?? opOfType(row.taskType) ?? row.taskType, prompt: r.prompt ?? '', negative_prompt: r.negative_prompt ?? '' };
  }
  const r = row.request as Txt2SpeechTask;
  return { voice_id: r.voice_id, language: r.language ?? '', texts: r.texts ?? [] };
}

/** The task result body (also what a webhook delivers): output links signed now. */
export function taskResultView(tasks: MediaTasks, row: q.MediaTaskRow): TaskResult {
  const ttl = tasks.config.linkTtlS;
  const url = (key: string) => tasks.blobs.links.url(key, ttl);
  const request = row.request as { seed?: number };
  return {
    extra: request.seed !== undefined ? { seed: String(request.seed) } : {},
    task: {
      task_id: row.id, status: row.status as TaskStatus, reason: row.reason, task_type: row.taskType,
      eta: row.endedAtMs !== null ? 0 : etaSeconds(row), progress_percent: row.progressPercent,
    },
    images: row.outputs.filter((o) => o.kind === 'image').map((o) => ({ image_url: url(o.key), image_url_ttl: ttl, image_type: o.type, nsfw_detection_result: null })),
    videos: [],
    audios: row.outputs.filter((o) => o.kind === 'audio').map((o) => ({ audio_url: url(o.key), audio_url_ttl: ttl, audio_type: o.type })),
  };
}

/** A rough estimate of the seconds left: a second an image or a text. */
function etaSeconds(row: q.MediaTaskRow): number {
  const r = row.request as { image_num?: number; texts?: string[] };
  const units = r.image_num ?? r.texts?.length ?? 1;
  return Math.max(1, Math.ceil(units * (1 - row.progressPercent / 100)));
}
