// The operator's side of the LLM catalogue beyond the rows themselves: upstream keys kept
// sealed in the store (set and rotated through the admin API, never returned) and the check
// a save makes of each HTTP upstream (reachable, the key accepted, the model listed).
import type { Config } from '../../config.ts';
import { invalid, notFound } from '../../lib/errors.ts';
import type { SecretBox } from '../../lib/secret-box.ts';
import { loadUndici } from '../../lib/undici.ts';
import type { Ctx } from '../context.ts';
import * as q from '../../store/models.ts';
import { judgeModel, listCatalogue, writeModel, type ModelInput, type UpstreamTarget } from './models.ts';

/** The admin area's catalogue context: the store, the sealing key, and how upstreams are reached. */
export interface Catalogue {
  ctx: Ctx;
  secrets: SecretBox;
  /** the value of an `apiKeyEnv` variable (config: GatewayConfig.upstreamCredential) */
  credential: (envName: string) => string | undefined;
  /** how long a save's check waits for each upstream's whole answer (GANTRY_UPSTREAM_CONNECT_TIMEOUT_MS) */
  checkTimeoutMs: number;
}

export function catalogueContext(s: { ctx: Ctx; secrets: SecretBox; config: Config }): Catalogue {
  return {
    ctx: s.ctx, secrets: s.secrets, credential: s.config.gateway.upstreamCredential, checkTimeoutMs: s.config.gateway.upstreamConnectTimeoutMs,
  };
}

/**
 * The key an HTTP server of a model is called with. A server that names `apiKeyEnv` gets that
 * variable (the narrower setting wins: in a failover list across providers, one provider's
 * stored key is never sent to another that has its own); every other server gets the model's
 * stored key, when one is set.
 */
export function upstreamKeyFor(t: Exclude<UpstreamTarget, 'sim'>, stored: string | undefined, credential: (envName: string) => string | undefined): string | undefined {
  return t.apiKeyEnv !== undefined ? credential(t.apiKeyEnv) : stored;
}

// A key goes into an Authorization header: printable ASCII without spaces, so a pasted line
// break or a stray character is refused now rather than failing every call later.
const KEY_SHAPE = /^[\x21-\x7e]{1,4096}$/;

/** Sets (or rotates) the model's upstream key, sealed; every replica's gateway picks it up through `catalogue.changed`. */
export async function setUpstreamKey(c: Catalogue, modelId: string, apiKey: string): Promise<q.ModelRow> {
  if (!KEY_SHAPE.test(apiKey)) throw invalid('apiKey', 'must be 1-4096 printable ASCII characters without spaces');
  return writeUpstreamKey(c, modelId, c.secrets.seal(apiKey));
}

/** Removes the model's stored key: its servers without `apiKeyEnv` are called without one. */
export async function clearUpstreamKey(c: Catalogue, modelId: string): Promise<q.ModelRow> {
  return writeUpstreamKey(c, modelId, null);
}

async function writeUpstreamKey(c: Catalogue, modelId: string, sealed: string | null): Promise<q.ModelRow> {
  const { ctx } = c;
  if (!(await q.setUpstreamKey(ctx.db, modelId, sealed, sealed === null ? null : new Date(ctx.clock.nowMs())))) throw notFound('model', modelId);
  ctx.changes.publish({ type: 'catalogue.changed' });
  return (await q.findModel(ctx.db, modelId))!;
}

/** The stored key in clear, or undefined (none set, or sealed with another data dir's key: then said once by the caller). */
export function openUpstreamKey(secrets: SecretBox, sealed: string | null): string | undefined {
  if (sealed === null) return undefined;
  return secrets.open(sealed);
}

/** What the check of one HTTP upstream found; `error` says what failed, in the operator's words. */
export interface UpstreamCheck {
  url: string;
  reachable: boolean;
  /** null: not known (unreachable, or the server failed otherwise) */
  keyAccepted: boolean | null;
  modelListed: boolean | null;
  error?: string;
}
export interface ModelCheck {
  ok: boolean;
  upstreams: UpstreamCheck[];
}

export const CHECK_MODES = ['warn', 'strict', 'off'] as const;
export type CheckMode = (typeof CHECK_MODES)[number];

/**
 * Saves a model after checking its HTTP upstreams once (`GET <url>/models` with the key each
 * would be called with). `warn` (the default) saves whatever the check found and answers it;
 * `strict` refuses a model whose check failed, writing nothing; `off` skips the check.
 */
export async function saveModel(c: Catalogue, input: ModelInput, mode: CheckMode): Promise<{ row: q.ModelRow; check: ModelCheck | null }> {
  const judged = await judgeModel(input);
  const existing = await q.findModel(c.ctx.db, input.id);
  const check = mode === 'off' ? null : await checkModel(c, input.id, judged.upstream, existing?.upstreamKeySealed ?? null);
  if (mode === 'strict' && check && !check.ok) {
    throw invalid('upstream', `the upstream check failed: ${check.upstreams.filter((u) => u.error).map((u) => `${u.url}: ${u.error}`).join('; ')}`);
  }
  return { row: await writeModel(c.ctx, judged, existing), check };
}

async function checkModel(c: Catalogue, modelId: string, upstream: unknown, sealed: string | null): Promise<ModelCheck> {
  const targets = (Array.isArray(upstream) ? upstream : [upstream]) as UpstreamTarget[];
  const stored = openUpstreamKey(c.secrets, sealed);
  const upstreams = await Promise.all(targets.filter((t) => t !== 'sim').map((t) => checkTarget(c, t, t.model ?? modelId, upstreamKeyFor(t, stored, c.credential))));
  return { ok: upstreams.every((u) => !u.error), upstreams };
}

/** What an error answer says: OpenAI's `error.message`, else the start of the body. */
function errorText(body: string): string {
  try {
    const j = JSON.parse(body) as { error?: { message?: unknown } | string; message?: unknown };
    if (typeof j.error === 'object' && typeof j.error?.message === 'string') return j.error.message;
    if (typeof j.error === 'string') return j.error;
    if (typeof j.message === 'string') return j.message;
  } catch { /* not JSON */ }
  return body;
}

/** One server's `/models`: a refused key (401/403), another failure, or whether it lists the model. */
async function checkTarget(c: Catalogue, t: Exclude<UpstreamTarget, 'sim'>, name: string, key: string | undefined): Promise<UpstreamCheck> {
  const url = `${t.url.replace(/\/+$/, '')}/models`;
  const headers: Record<string, string> = { accept: 'application/json' };
  if (key) headers.authorization = `Bearer ${key}`;
  // An upstream may quote the key it refused: the answer never carries it back.
  const clean = (s: string) => (key ? s.split(key).join('[redacted]') : s).slice(0, 300);
  let status: number;
  let text: string;
  try {
    const { request } = await loadUndici();
    const res = await request(url, { method: 'GET', headers, signal: AbortSignal.timeout(c.checkTimeoutMs), headersTimeout: c.checkTimeoutMs, bodyTimeout: c.checkTimeoutMs });
    status = res.statusCode;
    text = await res.body.text();
    if (status >= 400) text = errorText(text);
  } catch (e) {
    const code = (e as { code?: string }).code;
    return { url: t.url, reachable: false, keyAccepted: null, modelListed: null, error: clean(`not reachable: ${code ?? (e as Error).message}`) };
  }
  if (status === 401 || status === 403) {
    return { url: t.url, reachable: true, keyAccepted: false, modelListed: null, error: clean(`the key was refused (${status}${key ? '' : ', and none is set'}): ${text}`) };
  }
  if (status >= 400) return { url: t.url, reachable: true, keyAccepted: null, modelListed: null, error: clean(`GET /models answered ${status}: ${text}`) };
  let ids: string[] | undefined;
  try {
    const data = (JSON.parse(text) as { data?: unknown }).data;
    if (Array.isArray(data)) ids = data.map((m) => String((m as { id?: unknown })?.id));
  } catch { /* not a list: said below */ }
  if (!ids) return { url: t.url, reachable: true, keyAccepted: true, modelListed: null, error: 'GET /models did not answer an OpenAI model list' };
  if (!ids.includes(name)) {
    return { url: t.url, reachable: true, keyAccepted: true, modelListed: false, error: clean(`the server does not list ${name} (it lists ${ids.slice(0, 20).join(', ') || 'no model'})`) };
  }
  return { url: t.url, reachable: true, keyAccepted: true, modelListed: true };
}

/** How a model's upstream has been answering the gateway (gateway/upstreams/health.ts writes it). */
export interface UpstreamHealth {
  /** failing: the last call (of the replica that wrote last) failed; ok: it succeeded; unknown: no call recorded */
  state: 'ok' | 'failing' | 'unknown';
  consecutiveFailures: number;
  lastError: string | null;
  /** Unix seconds */
  lastErrorAt: number | null;
  lastSuccessAt: number | null;
}

const seconds = (d: Date | null) => (d ? Math.floor(d.getTime() / 1000) : null);

function healthView(row: q.UpstreamHealthRow | undefined): UpstreamHealth {
  if (!row) return { state: 'unknown', consecutiveFailures: 0, lastError: null, lastErrorAt: null, lastSuccessAt: null };
  return {
    state: row.consecutiveFailures > 0 ? 'failing' : 'ok', consecutiveFailures: row.consecutiveFailures,
    lastError: row.lastError, lastErrorAt: seconds(row.lastErrorAt), lastSuccessAt: seconds(row.lastSuccessAt),
  };
}

export async function getUpstreamHealth(c: Catalogue, modelId: string): Promise<UpstreamHealth> {
  if (!(await q.findModel(c.ctx.db, modelId))) throw notFound('model', modelId);
  return healthView(await q.findUpstreamHealth(c.ctx.db, modelId));
}

/** The catalogue as the operator sees it, each model with its upstream's health. */
export async function listCatalogueWithHealth(c: Catalogue, opts: { retired?: boolean | undefined } = {}) {
  const [models, health] = await Promise.all([listCatalogue(c.ctx, opts), q.listUpstreamHealth(c.ctx.db)]);
  const byModel = new Map(health.map((r) => [r.modelId, r]));
  return models.map((m) => ({ ...m, upstreamHealth: healthView(byModel.get(m.id)) }));
}

/** Records what a replica saw of a model's upstream (its gateway calls this when that changes, never per successful request). */
export async function recordUpstreamHealth(ctx: Ctx, row: q.UpstreamHealthRow): Promise<void> {
  await q.saveUpstreamHealth(ctx.db, row);
}
