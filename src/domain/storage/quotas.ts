// Per-team storage quotas (issue 29; invariants in ./README.md): the bytes and the number of a
// team's files (Files API) and of its uploaded media models, each limited by the configured
// default or the operator's override for the team. An upload is refused with 403
// STORAGE_QUOTA_EXCEEDED before its bytes are stored:
// 1. before reading: the count is full, or the declared body (Content-Length) passes what is
//    left by more than a multipart body's framing;
// 2. its record is inserted under the team's lock, counted with everything the team stores
//    (uploads in progress by their reservation: the declared length, 0 when none was given);
//    the answer is how many bytes it may stream: it stops as soon as it passes them;
// 3. its bytes stored, the final check (against what is stored) and the record becoming
//    visible are one transaction under the same lock: concurrent uploads never pass a quota
//    together.
import type { Ctx } from '../context.ts';
import type { DbOrTx } from '../../store/db.ts';
import { invalid, type AppError } from '../../lib/errors.ts';
import { quotaRefused } from './errors.ts';
import { requireTeam } from '../accounts/teams.ts';
import * as q from '../../store/storage.ts';
import type { Config } from '../../config.ts';

export type StorageKind = 'files' | 'media';

export interface StorageLimits {
  maxBytes: number;
  maxCount: number;
}

export type StorageDefaults = Record<StorageKind, StorageLimits>;

export interface StorageUse {
  usedBytes: number;
  usedCount: number;
  maxBytes: number;
  maxCount: number;
}

/** The operator's overrides (null: the configured default). */
export interface StorageOverrides {
  filesMaxBytes: number | null;
  filesMaxCount: number | null;
  mediaMaxBytes: number | null;
  mediaMaxCount: number | null;
}

export interface StorageView {
  files: StorageUse;
  media: StorageUse;
  overrides: StorageOverrides;
}

/**
 * How far a declared body may pass what is left before it is refused unread: the multipart
 * framing and the fields besides the file. A body within it is counted as it streams.
 */
export const MULTIPART_ALLOWANCE = 64 * 1024;

const WHAT: Record<StorageKind, { noun: string; many: string }> = {
  files: { noun: 'file storage', many: 'files' },
  media: { noun: 'media model storage', many: 'models' },
};

/** A size as people read it (binary units, as the quotas are set in GiB). */
export function formatBytes(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = n;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return u === 0 ? `${n} B` : `${Number(v.toFixed(v < 10 ? 2 : 1))} ${units[u]}`;
}

function bytesRefused(kind: StorageKind, limit: number, used: number, needed: number, when: string): AppError {
  return quotaRefused(
    `the team's ${WHAT[kind].noun} quota is ${formatBytes(limit)} (${limit} bytes), ${formatBytes(used)} is used and this upload ${when} ${formatBytes(needed)}: delete ${WHAT[kind].many} or ask the operator for more`,
    { field: 'file', rule: 'storage_quota', quota: `${kind}.bytes`, limit, used, requested: needed });
}

function countRefused(kind: StorageKind, limit: number, used: number): AppError {
  return quotaRefused(
    `the team stores ${used} ${WHAT[kind].many}, its quota is ${limit}: delete ${WHAT[kind].many} or ask the operator for more`,
    { field: 'file', rule: 'storage_quota', quota: `${kind}.count`, limit, used });
}

/** `stream`, failing with `refuse` as soon as it passes `roomBytes` (the blob store's put then keeps nothing). */
export async function* withinRoom(stream: AsyncIterable<Uint8Array>, roomBytes: number, refuse: (streamed: number) => AppError): AsyncGenerator<Uint8Array> {
  let n = 0;
  for await (const chunk of stream) {
    n += chunk.byteLength;
    if (n > roomBytes) throw refuse(n);
    yield chunk;
  }
}

/** The storage area's context: the store, and the configured default quotas (the operator overrides them per team). */
export interface StorageQuotas {
  ctx: Ctx;
  defaults: StorageDefaults;
}

/** The storage area's context from the graph (its entry of src/areas.ts): the defaults are the configuration's. */
export function storageContext(s: { ctx: Ctx; config: Config }): StorageQuotas {
  const { files, media } = s.config;
  return {
    ctx: s.ctx,
    defaults: { files: { maxBytes: files.quotaBytes, maxCount: files.quotaCount }, media: { maxBytes: media.quotaBytes, maxCount: media.quotaCount } },
  };
}

function limitsOf(quotas: StorageQuotas, kind: StorageKind, row: q.StorageQuotaRow | undefined): StorageLimits {
  const d = quotas.defaults[kind];
  return kind === 'files'
    ? { maxBytes: row?.filesMaxBytes ?? d.maxBytes, maxCount: row?.filesMaxCount ?? d.maxCount }
    : { maxBytes: row?.mediaMaxBytes ?? d.maxBytes, maxCount: row?.mediaMaxCount ?? d.maxCount };
}

function usage(ctx: Ctx, db: DbOrTx, teamId: string, kind: StorageKind, storedOnly = false): Promise<q.StorageUsage> {
  return kind === 'files' ? q.filesUsage(db, teamId, ctx.clock.nowMs(), storedOnly) : q.mediaUsage(db, teamId, storedOnly);
}

/** What a team stores against its quotas (the team's own read, and the operator's). */
export async function getStorage(quotas: StorageQuotas, teamId: string): Promise<StorageView> {
  const { ctx } = quotas;
  const row = await q.findStorageQuota(ctx.db, teamId);
  const [files, media] = await Promise.all([usage(ctx, ctx.db, teamId, 'files'), usage(ctx, ctx.db, teamId, 'media')]);
  const use = (kind: StorageKind, u: q.StorageUsage): StorageUse => ({ usedBytes: u.bytes, usedCount: u.count, ...limitsOf(quotas, kind, row) });
  return {
    files: use('files', files), media: use('media', media),
    overrides: {
      filesMaxBytes: row?.filesMaxBytes ?? null, filesMaxCount: row?.filesMaxCount ?? null,
      mediaMaxBytes: row?.mediaMaxBytes ?? null, mediaMaxCount: row?.mediaMaxCount ?? null,
    },
  };
}

/** The operator's read of a team's storage: the team must exist. */
export async function getTeamStorage(quotas: StorageQuotas, teamId: string): Promise<StorageView> {
  await requireTeam(quotas.ctx, teamId);
  return getStorage(quotas, teamId);
}

/** The operator sets a team's quotas: each field given replaces its override (null: back to the default). */
export async function setStorageOverrides(quotas: StorageQuotas, teamId: string, patch: Partial<StorageOverrides>): Promise<StorageView> {
  const { ctx } = quotas;
  await requireTeam(ctx, teamId);
  const set: q.StorageQuotaOverrides = {};
  for (const [k, v] of Object.entries(patch) as [keyof StorageOverrides, number | null | undefined][]) {
    if (v === undefined) continue;
    if (v !== null && (!Number.isSafeInteger(v) || v < 0)) throw invalid(k, 'must be a non-negative integer, or null for the default');
    set[k] = v;
  }
  if (Object.keys(set).length) await q.upsertStorageQuota(ctx.db, teamId, set, ctx.clock.nowMs());
  return getStorage(quotas, teamId);
}

/** Before any byte is read: refuse what cannot fit (a full count, or a declared body larger than what is left). */
export async function precheckUpload(quotas: StorageQuotas, teamId: string, kind: StorageKind, declaredBytes: number | undefined): Promise<void> {
  const { ctx } = quotas;
  const limits = limitsOf(quotas, kind, await q.findStorageQuota(ctx.db, teamId));
  const used = await usage(ctx, ctx.db, teamId, kind);
  if (used.count + 1 > limits.maxCount) throw countRefused(kind, limits.maxCount, used.count);
  if (declaredBytes !== undefined && used.bytes + declaredBytes > limits.maxBytes + MULTIPART_ALLOWANCE) {
    throw bytesRefused(kind, limits.maxBytes, used.bytes, declaredBytes, 'declares');
  }
}

/**
 * Insert an upload's record (`insert`, given the reservation it is counted by until its bytes
 * are in) under the team's lock, counted with everything the team stores. Resolves to the
 * record and the most bytes the upload may stream.
 */
export async function admitUpload<T>(quotas: StorageQuotas, teamId: string, kind: StorageKind, reservedBytes: number, insert: (tx: DbOrTx) => Promise<T>): Promise<{ record: T; roomBytes: number }> {
  const { ctx } = quotas;
  return ctx.db.transaction(async (tx) => {
    const limits = limitsOf(quotas, kind, await q.lockStorage(tx, teamId, ctx.clock.nowMs()));
    const used = await usage(ctx, tx, teamId, kind);
    if (used.count + 1 > limits.maxCount) throw countRefused(kind, limits.maxCount, used.count);
    if (used.bytes + reservedBytes > limits.maxBytes + MULTIPART_ALLOWANCE) throw bytesRefused(kind, limits.maxBytes, used.bytes, reservedBytes, 'declares');
    return { record: await insert(tx), roomBytes: Math.max(0, limits.maxBytes - used.bytes) };
  });
}

/** The refusal of an upload that streamed past `roomBytes` (admitUpload's answer). */
export function overStreamRefused(kind: StorageKind, roomBytes: number, streamedBytes: number): AppError {
  return quotaRefused(
    `the team's ${WHAT[kind].noun} quota leaves ${formatBytes(roomBytes)} (${roomBytes} bytes) for this upload and it sent more: nothing of it was kept`,
    { field: 'file', rule: 'storage_quota', quota: `${kind}.bytes`, room: roomBytes, streamed: streamedBytes });
}

/**
 * An upload's bytes are in: under the team's lock, its `actualBytes` with what the team has
 * stored must fit, and `finish` (the record becoming visible) commits with that check. Only
 * stored records count here: the first upload to finish wins, whatever others reserved
 * (a reservation whose upload then fails would otherwise refuse them all).
 */
export async function commitUpload<T>(quotas: StorageQuotas, teamId: string, kind: StorageKind, actualBytes: number, finish: (tx: DbOrTx) => Promise<T>): Promise<T> {
  const { ctx } = quotas;
  return ctx.db.transaction(async (tx) => {
    const limits = limitsOf(quotas, kind, await q.lockStorage(tx, teamId, ctx.clock.nowMs()));
    const stored = await usage(ctx, tx, teamId, kind, true);
    if (stored.bytes + actualBytes > limits.maxBytes) throw bytesRefused(kind, limits.maxBytes, stored.bytes, actualBytes, 'stores');
    return finish(tx);
  });
}
