// The Files API (OpenAI-compatible; shapes in spec/compat.md): batch input files uploaded by
// a team's keys, and (later) batch outputs written by Gantry. The record is a row
// (store/files.ts); the bytes are a blob (store/blobs). Rules:
// - a file is visible to every key of its team and to no one else (another team's id is 404);
// - an upload is all or nothing: the row is written first (`uploading`, invisible), then the
//   bytes, checked as they stream (jsonl.ts); any failure removes both, and a process that
//   dies mid-upload leaves a row the files.expire sweep finishes;
// - a file is kept `ttlMs` (15 days), then swept: bytes first, then the row;
// - an upload fits the team's storage quota (domain/storage): refused before its bytes are
//   read, or as they stream, and made visible in one step with the final check. Batch outputs
//   count against the quota but are never refused (the batch that makes them was paid for).
import type { Readable } from 'node:stream';
import type { Ctx } from '../context.ts';
import type { Principal } from '../roles.ts';
import type { Config, FilesConfig } from '../../config.ts';
import { bad, fileNotFound, uploadTooSlow } from './errors.ts';
import { newId } from '../../lib/ids.ts';
import { BlobNotFoundError, type BlobStore } from '../../store/blobs/index.ts';
import * as q from '../../store/files.ts';
import type { DbOrTx } from '../../store/db.ts';
import { checkedJsonl } from './jsonl.ts';
import { admitUpload, commitUpload, overStreamRefused, precheckUpload, withinRoom, type StorageQuotas } from '../storage/quotas.ts';
import type { Blobs } from '../blobs/links.ts';

export const FILE_PURPOSES = ['batch', 'batch_output'] as const;
export type FilePurpose = (typeof FILE_PURPOSES)[number];
/** what a client may upload; batch_output files are written by Gantry */
export const UPLOAD_PURPOSES = ['batch'] as const;

export interface FileObject {
  id: string;
  object: 'file';
  bytes: number;
  created_at: number;
  filename: string;
  purpose: string;
  expires_at: number;
  metadata: { total_requests: number };
}

/**
 * OpenAI's file object (the openai package's `FileObject`), served on the OpenAI-flavoured
 * base /v1. A file answered at all is `processed`: its lines were checked as it was uploaded,
 * and a file that broke a rule was refused then (so `files.waitForProcessing` returns at once).
 */
export interface OpenAIFileObject extends Omit<FileObject, 'metadata'> {
  status: 'processed';
  status_details: null;
}

export function openaiFileView({ metadata: _interfaceOnly, ...f }: FileObject): OpenAIFileObject {
  return { ...f, status: 'processed', status_details: null };
}

/** One part of a multipart upload, in the order the client sent them. */
export type UploadPart =
  | { kind: 'field'; name: string; value: string }
  | { kind: 'file'; name: string; filename: string; stream: AsyncIterable<Uint8Array> };

export interface FileList {
  object: 'list';
  data: FileObject[];
  first_id: string | null;
  last_id: string | null;
  has_more: boolean;
}

/** How long an upload may take before the sweep takes its row for a dead process's. */
const UPLOAD_DEADLINE_MS = 86_400_000;
const SWEEP_BATCH = 100;

const seconds = (ms: number) => Math.floor(ms / 1000);

function view(r: q.FileRow): FileObject {
  return {
    id: r.id, object: 'file', bytes: r.bytes, created_at: seconds(r.createdAtMs), filename: r.filename, purpose: r.purpose,
    expires_at: seconds(r.expiresAtMs), metadata: { total_requests: r.totalRequests },
  };
}

/** A file name as stored and shown: no control characters (PostgreSQL keeps no NUL), at most 255 characters. */
function cleanFilename(name: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is removed
  const clean = name.replace(/[\u0000-\u001f\u007f]/g, '').replace(/[\ud800-\udfff]/g, '').trim().slice(0, 255);
  return clean || 'file';
}

export interface FilesLimits extends FilesConfig {
  /** the longest line of a batch input: a model call's body limit */
  maxLineBytes: number;
}

/** The files area's context: the store, where the bytes go, the limits, and the teams' storage quotas. */
export interface Files {
  ctx: Ctx;
  blobs: BlobStore;
  limits: FilesLimits;
  storage: StorageQuotas;
}

/** The files area's context from the graph (its entry of src/areas.ts): a batch line may be as long as a model request's body. */
export function filesContext(s: { ctx: Ctx; config: Config; blobs: Blobs; storage: StorageQuotas }): Files {
  return { ctx: s.ctx, blobs: s.blobs.store, limits: { ...s.config.files, maxLineBytes: s.config.bodyLimits.llm }, storage: s.storage };
}

/**
 * Store an uploaded batch input file from its multipart parts (`file`, `purpose=batch`);
 * `declaredBytes`: the request body's Content-Length, when it has one.
 */
export async function uploadFile(files: Files, p: Principal, parts: AsyncIterable<UploadPart>, declaredBytes?: number): Promise<FileObject> {
  await precheckUpload(files.storage, p.teamId, 'files', declaredBytes); // before a byte is read
  let purpose: string | undefined;
  let stored: { row: q.NewFileRow; bytes: number; sha256: string; requests: number } | undefined;
  try {
    for await (const part of parts) {
      if (part.kind === 'field') {
        if (part.name !== 'purpose') continue; // OpenAI's optional fields (expires_after…) are not used
        purpose = part.value;
        if (!(UPLOAD_PURPOSES as readonly string[]).includes(purpose)) throw bad('purpose', `must be one of ${UPLOAD_PURPOSES.join(', ')}`);
        continue;
      }
      if (part.name !== 'file') throw bad(part.name, 'unexpected file field: the file goes in the field named file');
      if (stored) throw bad('file', 'one file per upload');
      stored = await storeUpload(files, p, part.filename, part.stream, declaredBytes);
    }
    if (purpose === undefined) throw bad('purpose', `required (one of ${UPLOAD_PURPOSES.join(', ')})`);
    if (!stored) throw bad('file', 'required: a multipart field named file');
    const now = files.ctx.clock.nowMs();
    const expiresAtMs = now + files.limits.ttlMs;
    const done = { bytes: stored.bytes, sha256: stored.sha256, totalRequests: stored.requests, expiresAtMs };
    const id = stored.row.id;
    if (!(await commitUpload(files.storage, p.teamId, 'files', stored.bytes, (tx) => q.markFileReady(tx, id, done)))) {
      throw uploadTooSlow();
    }
    return view({ ...stored.row, ...done, createdAtMs: stored.row.createdAtMs, state: 'ready', sweepAtMs: expiresAtMs } as q.FileRow);
  } catch (err) {
    if (stored) await discardFile(files, stored.row);
    throw err;
  }
}

/**
 * The row first (so the sweep can always find the bytes), counted by its reservation under the
 * team's quota, then the checked bytes, at most what the quota leaves.
 */
async function storeUpload(files: Files, p: Principal, filename: string, stream: AsyncIterable<Uint8Array>, declaredBytes: number | undefined) {
  const now = files.ctx.clock.nowMs();
  const id = newId('file', now);
  const row: q.NewFileRow = {
    id, teamId: p.teamId, memberId: p.memberId, keyId: p.keyId, state: 'uploading', filename: cleanFilename(filename),
    purpose: 'batch', blobKey: `files/${p.teamId}/${id}`, createdAtMs: now, expiresAtMs: now + files.limits.ttlMs,
    sweepAtMs: now + UPLOAD_DEADLINE_MS, bytes: Math.min(declaredBytes ?? 0, files.limits.maxBytes),
  };
  const { roomBytes } = await admitUpload(files.storage, p.teamId, 'files', row.bytes!, (tx) => q.insertFile(tx, row));
  try {
    const checked = checkedJsonl(withinRoom(stream, roomBytes, (n) => overStreamRefused('files', roomBytes, n)), files.limits);
    const put = await files.blobs.put(row.blobKey, checked.chunks, { contentType: 'application/jsonl' });
    return { row, bytes: put.bytes, sha256: put.sha256, requests: checked.requests() };
  } catch (err) {
    await discardFile(files, row);
    throw err;
  }
}

/** Remove what a failed upload wrote; if that fails too, the sweep finishes it. */
async function discardFile(files: Files, row: q.NewFileRow): Promise<void> {
  try {
    await q.setFileDeleting(files.ctx.db, row.id, files.ctx.clock.nowMs());
    await files.blobs.delete(row.blobKey);
    await q.deleteFileRow(files.ctx.db, row.id);
  } catch {
    // The row is `deleting` (due now) or still `uploading` (due at its deadline): files.expire removes it.
  }
}

/**
 * Write a file Gantry produces (a batch's output or errors, purpose batch_output) for a
 * team: the row first (`uploading`, invisible), then the bytes. It becomes visible when the
 * caller commits `ready(tx)` with its own state change (a batch ending), so a crash before
 * leaves only a row the sweep removes at its deadline.
 */
export async function writeOutputFile(files: Files, owner: { teamId: string; memberId: string; keyId: string }, filename: string, lines: AsyncIterable<Uint8Array>): Promise<{ id: string; ready(tx: DbOrTx): Promise<boolean> }> {
  const now = files.ctx.clock.nowMs();
  const id = newId('file', now);
  const row: q.NewFileRow = {
    id, teamId: owner.teamId, memberId: owner.memberId, keyId: owner.keyId, state: 'uploading', filename, purpose: 'batch_output',
    blobKey: `files/${owner.teamId}/${id}`, createdAtMs: now, expiresAtMs: now + files.limits.ttlMs, sweepAtMs: now + UPLOAD_DEADLINE_MS,
  };
  await q.insertFile(files.ctx.db, row);
  let requests = 0;
  async function* counted(): AsyncGenerator<Uint8Array> {
    for await (const chunk of lines) {
      for (const b of chunk) if (b === 0x0a) requests++;
      yield chunk;
    }
  }
  try {
    const put = await files.blobs.put(row.blobKey, counted(), { contentType: 'application/jsonl' });
    return { id, ready: (tx) => q.markFileReady(tx, id, { bytes: put.bytes, sha256: put.sha256, totalRequests: requests, expiresAtMs: row.expiresAtMs }) };
  } catch (err) {
    await discardFile(files, row);
    throw err;
  }
}

export async function getFile(files: Files, p: Principal, id: string): Promise<FileObject> {
  return view(await requireFile(files, p, id));
}

async function requireFile(files: Files, p: Principal, id: string): Promise<q.FileRow> {
  const row = await q.findFile(files.ctx.db, p.teamId, id, files.ctx.clock.nowMs());
  if (!row) throw fileNotFound(id);
  return row;
}

/** The team's files, newest first by default; `after` is the last id of the previous page (OpenAI's cursor). */
export async function listFiles(files: Files, p: Principal, f: { purpose?: string | undefined; after?: string | undefined; limit: number; order: 'asc' | 'desc' }): Promise<FileList> {
  const rows = await q.listFiles(files.ctx.db, {
    teamId: p.teamId, nowMs: files.ctx.clock.nowMs(), purpose: f.purpose, afterId: f.after, order: f.order, limit: f.limit + 1,
  });
  const data = rows.slice(0, f.limit).map(view);
  return { object: 'list', data, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null, has_more: rows.length > f.limit };
}

/** Hidden at once; its bytes and row go now, or in the next sweep if the blob store is away. */
export async function deleteFile(files: Files, p: Principal, id: string): Promise<{ id: string; object: 'file'; deleted: true }> {
  const now = files.ctx.clock.nowMs();
  const row = await q.markFileDeleting(files.ctx.db, p.teamId, id, now);
  if (!row) throw fileNotFound(id);
  try {
    await files.blobs.delete(row.blobKey);
    await q.deleteFileRow(files.ctx.db, row.id);
  } catch {
    // due now: files.expire retries
  }
  return { id, object: 'file', deleted: true };
}

/** The file's bytes, streamed. */
export async function getFileContent(files: Files, p: Principal, id: string): Promise<{ file: FileObject; stream: Readable }> {
  const row = await requireFile(files, p, id);
  try {
    return { file: view(row), stream: await files.blobs.get(row.blobKey) };
  } catch (err) {
    if (err instanceof BlobNotFoundError) throw fileNotFound(id); // removed between the read and now
    throw err;
  }
}

/**
 * The files.expire job: remove expired files, deleted ones whose bytes are still there, and
 * uploads whose process died. Bytes first, then the row; safe to run twice or on two
 * replicas at once (each row is claimed). Resolves to how many rows were removed.
 */
export async function sweepFiles(files: Files, signal?: AbortSignal): Promise<number> {
  const { ctx } = files;
  let removed = 0;
  for (let round = 0; round < 100 && !signal?.aborted; round++) {
    const now = ctx.clock.nowMs();
    const due = await q.dueFiles(ctx.db, now, SWEEP_BATCH);
    for (const r of due) {
      if (signal?.aborted) break;
      const row = await q.claimDueFile(ctx.db, r.id, now);
      if (!row) continue;
      await files.blobs.delete(row.blobKey);
      await q.deleteFileRow(ctx.db, row.id);
      removed++;
    }
    if (due.length < SWEEP_BATCH) break;
  }
  return removed;
}
