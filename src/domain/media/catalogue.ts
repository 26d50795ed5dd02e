// The media model catalogue (interface.md "Get media model catalogue"; rules in ./README.md):
// public records are the operator's (imported), private ones a team's uploads. Pages are
// keyset on the record id with an opaque cursor; every key of a team sees the public records
// and the team's own. A record's file is a blob; `download_url` is a signed Gantry link.
import type { Ctx } from '../context.ts';
import type { Principal } from '../roles.ts';
import type { UploadPart } from '../files/files.ts';
import { notFound } from '../../lib/errors.ts';
import { bad, fileTooLarge, recordChanged } from './errors.ts';
import { newId } from '../../lib/ids.ts';
import type { BlobLinks, BlobStore } from '../../store/blobs/index.ts';
import * as q from '../../store/media.ts';
import { inTransaction } from '../changes.ts';
import { admitUpload, commitUpload, overStreamRefused, precheckUpload, withinRoom, type StorageQuotas } from '../storage/quotas.ts';
import {
  BASE_MODEL_TYPES, MODEL_SOURCES, MODEL_STATUS, MODEL_TYPE_DISPLAY, MODEL_TYPES, VISIBILITIES, sdNameInApi, type ModelType,
} from './codes.ts';

export interface MediaModelRecord {
  id: number;
  name: string;
  hash_sha256: string;
  sd_name: string;
  type: { name: string; display_name: string };
  categories: string[];
  status: number;
  download_url: string;
  tags: string[];
  cover_url: string;
  source: string;
  base_model: string;
  base_model_type: string;
  download_url_ttl: number;
  sd_name_in_api: string;
  is_sdxl: boolean;
}

/** What the operator's listing adds to a record: the file's size and the record's times (Unix seconds). */
export interface AdminMediaModelRecord extends MediaModelRecord {
  bytes: number;
  created_at: number;
  updated_at: number;
}

export interface CataloguePage {
  models: MediaModelRecord[];
  pagination: { next_cursor: string };
}

/** The query as the route read it (dotted keys; brackets were renamed by the query parser). */
export interface CatalogueQuery {
  'filter.visibility'?: string | undefined;
  'filter.source'?: string | undefined;
  'filter.types'?: string | undefined;
  'filter.is_sdxl'?: string | undefined;
  'filter.query'?: string | undefined;
  'filter.is_inpainting'?: string | undefined;
  'pagination.limit'?: string | undefined;
  'pagination.cursor'?: string | undefined;
}

export interface CatalogueOptions {
  /** lifetime of a download link, seconds (interface.md: default one day) */
  downloadTtlS: number;
  /** the largest file a team may upload, bytes */
  uploadMaxBytes: number;
  /**
   * an upload still unavailable (status 0) this long after it began was stranded by a process
   * that died mid-stream: media.tasks.sweep removes it (GANTRY_MEDIA_UPLOAD_STALE_HOURS)
   */
  uploadStaleMs: number;
}

/** interface.md: pagination.limit in (0, 100]; Gantry's default when unset. */
export const MAX_PAGE = 100;
export const DEFAULT_PAGE = 20;
const TEXT_MAX = 255;
const LIST_MAX = 32;

/** A list parameter: one value, a comma-joined list, or the parameter repeated. */
function listParam(raw: string | string[] | undefined, field: string, allowed: readonly string[]): string[] | undefined {
  if (raw === undefined) return undefined;
  const values = [raw].flat().flatMap((v) => v.split(',')).map((v) => v.trim()).filter(Boolean);
  for (const v of values) if (!allowed.includes(v)) throw bad(field, `must be one of ${allowed.join(', ')} (comma-separated for several)`);
  return values.length ? values : undefined;
}

function boolParam(raw: string | undefined, field: string): boolean | undefined {
  if (raw === undefined || raw === '') return undefined;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw bad(field, 'must be true or false');
}

/** The cursor names the last record of the page before; clients treat it as opaque. */
const CURSOR = /^c_(\d{1,10})$/;
export const cursorAfter = (id: number) => `c_${id}`;

function limitParam(raw: string | undefined): number {
  if (raw === undefined || raw === '') return DEFAULT_PAGE;
  const n = /^\d{1,4}$/.test(raw.trim()) ? Number(raw.trim()) : Number.NaN;
  if (!(n > 0 && n <= MAX_PAGE)) throw bad('pagination.limit', `must be an integer in (0, ${MAX_PAGE}]`);
  return n;
}

function cursorParam(raw: string | undefined): number {
  if (raw === undefined || raw === '') return 0;
  const m = CURSOR.exec(raw);
  if (!m || Number(m[1]) > 2_147_483_647) throw bad('pagination.cursor', 'not a cursor this catalogue gave: pass next_cursor of the previous page, or nothing');
  return Number(m[1]);
}

/** What operators and uploads describe a record with. */
export interface ModelInput {
  name?: string | undefined;
  sd_name?: string | undefined;
  type?: string | undefined;
  source?: string | undefined;
  base_model?: string | undefined;
  base_model_type?: string | undefined;
  is_sdxl?: string | boolean | undefined;
  tags?: string | string[] | undefined;
  categories?: string | string[] | undefined;
  cover_url?: string | undefined;
}

export interface CheckedModel {
  name: string;
  sdName: string;
  sdNameInApi: string;
  type: ModelType;
  source: string;
  baseModel: string;
  baseModelType: string;
  isSdxl: boolean;
  tags: string[];
  categories: string[];
  coverUrl: string;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
const CONTROL = /[\u0000-\u001f\u007f]/;

function text(v: string | undefined, field: string, opts: { required?: boolean; max?: number } = {}): string {
  const s = (v ?? '').trim();
  if (opts.required && !s) throw bad(field, 'required');
  if (s.length > (opts.max ?? TEXT_MAX)) throw bad(field, `at most ${opts.max ?? TEXT_MAX} characters`);
  if (CONTROL.test(s)) throw bad(field, 'no control characters');
  return s;
}

function textList(v: string | string[] | undefined, field: string): string[] {
  if (v === undefined) return [];
  let items: unknown = v;
  if (typeof v === 'string') {
    const t = v.trim();
    try {
      items = t.startsWith('[') ? JSON.parse(t) : t.split(',');
    } catch {
      throw bad(field, 'a JSON array of strings or a comma-separated list');
    }
  }
  if (!Array.isArray(items) || !items.every((x) => typeof x === 'string')) throw bad(field, 'a list of strings');
  const out = [...new Set(items.map((x) => text(x, field, { max: 64 })).filter(Boolean))];
  if (out.length > LIST_MAX) throw bad(field, `at most ${LIST_MAX} entries`);
  return out;
}

/** Check a record's description; `filename` is the uploaded file's name (the default sd_name). */
export function checkModelInput(input: ModelInput, filename: string, opts: { public: boolean }): CheckedModel {
  const type = text(input.type, 'type', { required: true });
  if (!(MODEL_TYPES as readonly string[]).includes(type)) throw bad('type', `must be one of ${MODEL_TYPES.join(', ')}`);
  const sdName = text(input.sd_name ?? filename, 'sd_name', { required: true });
  if (sdName.includes('/') || sdName.includes('\\') || sdName.startsWith('.')) throw bad('sd_name', 'a file name: no path separators, not starting with a dot');
  const name = text(input.name ?? sdName, 'name', { required: true });
  // a team's uploads are `uploading` (interface.md's example); the operator names the source
  const source = opts.public ? text(input.source || 'civitai', 'source') : 'uploading';
  if (!(MODEL_SOURCES as readonly string[]).includes(source)) throw bad('source', `must be one of ${MODEL_SOURCES.join(', ')}`);
  const baseModelType = text(input.base_model_type || 'Standard', 'base_model_type');
  if (!(BASE_MODEL_TYPES as readonly string[]).includes(baseModelType)) throw bad('base_model_type', `must be one of ${BASE_MODEL_TYPES.join(', ')}`);
  const sdxl = typeof input.is_sdxl === 'boolean' ? input.is_sdxl : boolParam(input.is_sdxl, 'is_sdxl');
  const coverUrl = text(input.cover_url, 'cover_url', { max: 2048 });
  if (coverUrl && !/^https?:\/\//.test(coverUrl)) throw bad('cover_url', 'an http or https URL');
  return {
    name, sdName, sdNameInApi: sdNameInApi(type as ModelType, sdName), type: type as ModelType, source,
    baseModel: text(input.base_model, 'base_model', { max: 64 }), baseModelType, isSdxl: sdxl ?? false,
    tags: textList(input.tags, 'tags'), categories: textList(input.categories, 'categories'), coverUrl,
  };
}

const searchText = (m: CheckedModel) => [m.sdName, m.name, ...m.tags].join('\n').toLowerCase();

/** Multipart fields of an upload, before its file. */
const FIELDS = new Set(['name', 'sd_name', 'type', 'source', 'base_model', 'base_model_type', 'is_sdxl', 'tags', 'categories', 'cover_url']);

/**
 * The catalogue's context: the store, where the files are kept and their signed links, the
 * catalogue's options, and the teams' storage quotas (uploads count against them).
 */
export interface MediaCatalogue {
  ctx: Ctx;
  blobs: { store: BlobStore; links: BlobLinks };
  opts: CatalogueOptions;
  storage: StorageQuotas;
}

/** A record as the API shows it: its download link signed now. */
export function mediaModelView(cat: MediaCatalogue, r: q.MediaModelRow): MediaModelRecord {
  const ready = r.status === MODEL_STATUS.available;
  return {
    id: r.id, name: r.name, hash_sha256: r.hashSha256, sd_name: r.sdName,
    type: { name: r.type, display_name: MODEL_TYPE_DISPLAY[r.type as ModelType] ?? r.type },
    categories: r.categories, status: r.status, download_url: ready ? cat.blobs.links.url(r.blobKey, cat.opts.downloadTtlS) : '',
    tags: r.tags, cover_url: r.coverUrl, source: r.source, base_model: r.baseModel, base_model_type: r.baseModelType,
    download_url_ttl: cat.opts.downloadTtlS, sd_name_in_api: r.sdNameInApi, is_sdxl: r.isSdxl,
  };
}

export async function listMediaModels(cat: MediaCatalogue, p: Principal, query: CatalogueQuery): Promise<CataloguePage> {
  const visibility = listParam(query['filter.visibility'], 'filter.visibility', VISIBILITIES);
  const page = await readPage(query, (f) => q.listMediaModels(cat.ctx.db, {
    ...f, teamId: p.teamId, visibility: visibility?.length === 1 ? visibility[0] as 'public' | 'private' : undefined,
  }));
  return { models: page.rows.map((r) => mediaModelView(cat, r)), pagination: { next_cursor: page.next } };
}

/**
 * The operator's listing of the public records (GET /admin/v1/media/models): the filters and
 * cursor of GET /v3/model (no visibility: only public records), with size and times.
 */
export async function listPublicMediaModels(cat: MediaCatalogue, query: CatalogueQuery): Promise<{ models: AdminMediaModelRecord[]; pagination: { next_cursor: string } }> {
  const page = await readPage(query, (f) => q.listPublicMediaModels(cat.ctx.db, f));
  return {
    models: page.rows.map((r) => ({
      ...mediaModelView(cat, r), bytes: r.bytes, created_at: Math.floor(r.createdAtMs / 1000), updated_at: Math.floor(r.updatedAtMs / 1000),
    })),
    pagination: { next_cursor: page.next },
  };
}

/** One keyset page of `read` under the query's filters and cursor (one more row is read to know if another page follows). */
async function readPage(query: CatalogueQuery, read: (f: Omit<q.CatalogueFilter, 'teamId' | 'visibility'>) => Promise<q.MediaModelRow[]>): Promise<{ rows: q.MediaModelRow[]; next: string }> {
  const limit = limitParam(query['pagination.limit']);
  const rows = await read({
    sources: listParam(query['filter.source'], 'filter.source', MODEL_SOURCES),
    types: listParam(query['filter.types'], 'filter.types', MODEL_TYPES),
    isSdxl: boolParam(query['filter.is_sdxl'], 'filter.is_sdxl'),
    query: text(query['filter.query'], 'filter.query').toLowerCase() || undefined,
    inpainting: boolParam(query['filter.is_inpainting'], 'filter.is_inpainting') ?? false,
    afterId: cursorParam(query['pagination.cursor']),
    limit: limit + 1,
  });
  const page = rows.slice(0, limit);
  return { rows: page, next: rows.length > limit ? cursorAfter(page.at(-1)!.id) : '' };
}

/**
 * A team's upload (multipart: the fields, then `file`). The record is written first with
 * status 0 (unavailable), then the bytes, hashed as they stream; then status 1. A failure
 * removes both. Within the team's storage quota (domain/storage): checked before a byte is
 * read (`declaredBytes`: the body's Content-Length), as the bytes stream, and with the
 * record becoming available.
 */
export async function uploadMediaModel(cat: MediaCatalogue, p: Principal, parts: AsyncIterable<UploadPart>, declaredBytes?: number): Promise<MediaModelRecord> {
  await precheckUpload(cat.storage, p.teamId, 'media', declaredBytes);
  return receiveModel(cat, parts, { teamId: p.teamId, maxBytes: cat.opts.uploadMaxBytes, declaredBytes });
}

/**
 * An operator's import of a public record (the admin API, `gantry admin media import`): the
 * bytes first, under a key of their own, then the record (a record of the same
 * sd_name_in_api is replaced, and its old file removed).
 */
export function importPublicMediaModel(cat: MediaCatalogue, parts: AsyncIterable<UploadPart>): Promise<MediaModelRecord> {
  return receiveModel(cat, parts, { teamId: null, maxBytes: Number.MAX_SAFE_INTEGER });
}

async function receiveModel(cat: MediaCatalogue, parts: AsyncIterable<UploadPart>, o: { teamId: string | null; maxBytes: number; declaredBytes?: number | undefined }): Promise<MediaModelRecord> {
  const fields: Record<string, string> = {};
  let done: MediaModelRecord | undefined;
  for await (const part of parts) {
    if (done) throw bad(part.name, 'nothing may follow the file');
    if (part.kind === 'field') {
      if (!FIELDS.has(part.name)) throw bad(part.name, `unknown field; the fields are ${[...FIELDS].join(', ')} and then file`);
      fields[part.name] = part.value;
      continue;
    }
    if (part.name !== 'file') throw bad(part.name, 'the file goes in the field named file');
    const input = checkModelInput(fields, part.filename, { public: o.teamId === null });
    done = o.teamId === null
      ? mediaModelView(cat, await importPublicModel(cat.ctx, cat.blobs.store, input, part.stream))
      : await storePrivateModel(cat, o.teamId, input, part.stream, o.maxBytes, o.declaredBytes);
  }
  if (!done) throw bad('file', 'required: a multipart field named file, after the other fields');
  return done;
}

async function storePrivateModel(cat: MediaCatalogue, teamId: string, m: CheckedModel, stream: AsyncIterable<Uint8Array>, maxBytes: number, declaredBytes: number | undefined): Promise<MediaModelRecord> {
  const { ctx } = cat;
  const now = ctx.clock.nowMs();
  let row: q.MediaModelRow;
  let roomBytes: number;
  try {
    // counted by its reservation (`bytes` until the file is in) with the team's other models
    const reserved = Math.min(declaredBytes ?? 0, maxBytes);
    ({ record: row, roomBytes } = await admitUpload(cat.storage, teamId, 'media', reserved, (tx) => q.insertMediaModel(tx, {
      teamId, ...rowFields(m), status: MODEL_STATUS.unavailable, blobKey: `media/models/${newId('mediaModel', now)}`, createdAtMs: now, updatedAtMs: now,
      bytes: reserved,
    })));
  } catch (err) {
    if (q.isModelNameTaken(err)) throw bad('sd_name', `this team already has a ${m.type} named ${m.sdNameInApi}`);
    throw err;
  }
  try {
    const bytes = withinRoom(capped(stream, maxBytes), roomBytes, (n) => overStreamRefused('media', roomBytes, n));
    const put = await cat.blobs.store.put(row.blobKey, bytes, { contentType: 'application/octet-stream' });
    const ready = await commitUpload(cat.storage, teamId, 'media', put.bytes, (tx) => q.updateMediaModel(tx, row.id, {
      hashSha256: put.sha256, bytes: put.bytes, status: MODEL_STATUS.available, updatedAtMs: ctx.clock.nowMs(),
    }));
    if (!ready) throw recordChanged('the record was deleted while its file was uploaded', 'file');
    return mediaModelView(cat, ready);
  } catch (err) {
    await cat.blobs.store.delete(row.blobKey).catch(() => {});
    await q.deleteMediaModel(ctx.db, row.id).catch(() => {});
    throw err;
  }
}

/** A team deletes one of its uploads; a public record or another team's is not found. */
export async function deletePrivateMediaModel(cat: MediaCatalogue, p: Principal, id: number): Promise<void> {
  const row = await findModel(cat, id);
  if (!row || row.teamId !== p.teamId) throw notFound('model', String(id));
  await removeModel(cat, row);
}

/** The operator deletes a public record. */
export async function deletePublicMediaModel(cat: MediaCatalogue, id: number): Promise<void> {
  const row = await findModel(cat, id);
  if (!row || row.teamId !== null) throw notFound('public model', String(id));
  await removeModel(cat, row);
}

/**
 * Remove the uploads a process that died mid-stream left unavailable (status 0) for longer
 * than `uploadStaleMs`: the row (only while still status 0, so an upload that finished
 * meanwhile stays), then the bytes under its key (a partial file of the local store is in
 * its `.tmp`, swept at start; an aborted S3 multipart upload is the bucket's lifecycle). An
 * upload still streaming after the bound finds its row gone and removes its own bytes
 * (storePrivateModel). Returns how many were removed.
 */
export async function removeStrandedUploads(cat: MediaCatalogue, signal?: AbortSignal): Promise<number> {
  const { ctx } = cat;
  let n = 0;
  for (;;) {
    const rows = await q.strandedUploads(ctx.db, ctx.clock.nowMs() - cat.opts.uploadStaleMs, 100);
    for (const r of rows) {
      if (signal?.aborted) return n;
      if (await q.deleteUnavailableModel(ctx.db, r.id)) {
        await cat.blobs.store.delete(r.blobKey);
        n++;
      }
    }
    if (rows.length < 100) return n;
  }
}

/** Ids are int32 (an identity column): a larger one names no record. */
async function findModel(cat: MediaCatalogue, id: number): Promise<q.MediaModelRow | undefined> {
  return Number.isInteger(id) && id > 0 && id <= 2_147_483_647 ? q.findMediaModel(cat.ctx.db, id) : undefined;
}

/** The row first (no link is signed for it after this), then the bytes. */
async function removeModel(cat: MediaCatalogue, row: q.MediaModelRow): Promise<void> {
  await q.deleteMediaModel(cat.ctx.db, row.id);
  await cat.blobs.store.delete(row.blobKey);
}

/**
 * Store a public record's bytes under a key of their own, then write the record (replacing a
 * record of the same sd_name_in_api, whose old file is then removed). A crash between the
 * two leaves bytes no record names, never a record without its bytes.
 */
export async function importPublicModel(ctx: Ctx, blobs: BlobStore, m: CheckedModel, stream: AsyncIterable<Uint8Array>): Promise<q.MediaModelRow> {
  return (await importPublicModels(ctx, blobs, [{ model: m, stream }]))[0]!;
}

/**
 * Public records with their files, at once: every file stored (side by side), then one query
 * for the records already there, one insert for the new ones, an update for each replaced one
 * (its old file deleted after). What fails leaves none of the new files behind. The first
 * start's demo catalogue (demo.ts) is 31 records: one by one, its queries alone took ~0.2 s of
 * that start (bench/README.md, "first start").
 */
export async function importPublicModels(ctx: Ctx, blobs: BlobStore, items: Array<{ model: CheckedModel; stream: AsyncIterable<Uint8Array> }>): Promise<q.MediaModelRow[]> {
  const now = ctx.clock.nowMs();
  const keys = items.map(() => `media/models/${newId('mediaModel', now)}`);
  const puts = await Promise.allSettled(items.map((it, i) => blobs.put(keys[i]!, it.stream, { contentType: 'application/octet-stream' })));
  const dropNew = () => Promise.all(keys.map((k) => blobs.delete(k).catch(() => {})));
  const failed = puts.find((p) => p.status === 'rejected');
  if (failed) {
    await dropNew();
    throw failed.reason;
  }
  const fields = items.map((it, i) => {
    const put = (puts[i] as PromiseFulfilledResult<Awaited<ReturnType<BlobStore['put']>>>).value;
    return { ...rowFields(it.model), hashSha256: put.sha256, bytes: put.bytes, status: MODEL_STATUS.available, blobKey: keys[i]!, updatedAtMs: now };
  });
  try {
    // One transaction: a batch whose last record fails leaves none of its records changed,
    // so the new blobs can all go; the blobs the records pointed at before go only once the
    // records point elsewhere for good (after the commit).
    const { rows, replaced } = await inTransaction(ctx, async (tx) => {
      const existing = new Map((await q.findPublicModelsByNames(tx, items.map((it) => it.model.sdNameInApi))).map((r) => [r.sdNameInApi, r]));
      const fresh = fields.filter((f) => !existing.has(f.sdNameInApi));
      const inserted = new Map((fresh.length ? await q.insertMediaModels(tx, fresh.map((f) => ({ teamId: null, ...f, createdAtMs: now }))) : []).map((r) => [r.sdNameInApi, r]));
      const out: q.MediaModelRow[] = [];
      for (const f of fields) {
        const old = existing.get(f.sdNameInApi);
        const row = old ? await q.updateMediaModel(tx, old.id, f) : inserted.get(f.sdNameInApi);
        if (!row) throw recordChanged(`the record ${f.sdNameInApi} was deleted during the import; import it again`, 'sd_name');
        out.push(row);
      }
      return { rows: out, replaced: [...existing.values()].map((r) => r.blobKey) };
    });
    await Promise.all(replaced.map((k) => blobs.delete(k).catch(() => {})));
    return rows;
  } catch (err) {
    await dropNew();
    if (q.isModelNameTaken(err)) throw recordChanged(`another import of ${items.length === 1 ? items[0]!.model.sdNameInApi : 'one of these records'} ran at the same time; import it again`, 'sd_name');
    throw err;
  }
}

function rowFields(m: CheckedModel) {
  return {
    name: m.name, sdName: m.sdName, sdNameInApi: m.sdNameInApi, type: m.type, categories: m.categories, tags: m.tags,
    search: searchText(m), coverUrl: m.coverUrl, source: m.source, baseModel: m.baseModel, baseModelType: m.baseModelType,
    isSdxl: m.isSdxl,
  };
}

/** The upload's bytes, refused past `maxBytes` (the put then keeps nothing). */
async function* capped(stream: AsyncIterable<Uint8Array>, maxBytes: number): AsyncGenerator<Uint8Array> {
  let n = 0;
  for await (const chunk of stream) {
    n += chunk.byteLength;
    if (n > maxBytes) throw fileTooLarge(maxBytes);
    yield chunk;
  }
}
