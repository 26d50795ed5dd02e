// The LLM model catalogue and which models a team may use.
import { invalid, notFound } from '../../lib/errors.ts';
import { MAX_PRICE_UNITS } from '../../lib/money.ts';
import { reloadTokenizer, TOKENIZER_RULE, tokenizerKind } from '../../lib/tokenizers.ts';
import type { Ctx } from '../context.ts';
import * as q from '../../store/models.ts';
import type { TeamRow } from '../../store/accounts.ts';

/**
 * available: listed and callable; offline: neither, for a while (still in the operator's list);
 * retired: neither, for good: it leaves the operator's list too (unless asked for) and no team
 * can have it enabled again. Usage already recorded and bills keep naming it.
 */
export const MODEL_STATUSES = ['available', 'offline', 'retired'] as const;
export type ModelStatus = (typeof MODEL_STATUSES)[number];

/**
 * Where a model is served: the built-in simulator, or OpenAI-compatible HTTP servers in
 * failover order. `tokenizer` names the tokenizer the server's model uses (lib/tokenizers.ts),
 * so the gateway counts its prompts exactly (gateway/context.ts); every server of a list that
 * names one names the same.
 */
export type UpstreamTarget = 'sim' | { url: string; model?: string; apiKeyEnv?: string; responses?: boolean; tokenizer?: string };
export type UpstreamSpec = UpstreamTarget | UpstreamTarget[];

export interface ModelInput {
  id: string;
  title: string;
  description?: string | undefined;
  contextSize: number;
  inputTokenPricePerM: number | string;
  outputTokenPricePerM: number | string;
  /** Batch API prices (billing method 5); omitted or null: half the interactive price */
  batchInputTokenPricePerM?: number | string | null | undefined;
  batchOutputTokenPricePerM?: number | string | null | undefined;
  /** Price of prompt tokens the upstream reports as cached; omitted or null: the input price */
  cachedInputTokenPricePerM?: number | string | null | undefined;
  status: string;
  upstream: unknown;
}

function validateTarget(t: unknown, field: string): UpstreamTarget {
  if (t === 'sim') return 'sim';
  if (!t || typeof t !== 'object' || Array.isArray(t)) throw invalid(field, 'must be "sim" or {url, model?, apiKeyEnv?, responses?, tokenizer?}');
  const o = t as Record<string, unknown>;
  if (typeof o.url !== 'string') throw invalid(`${field}.url`, 'required, an http(s) URL');
  let u: URL;
  try {
    u = new URL(o.url);
  } catch {
    throw invalid(`${field}.url`, 'must be an http(s) URL');
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw invalid(`${field}.url`, 'must be an http(s) URL');
  if (o.model !== undefined && (typeof o.model !== 'string' || !o.model)) throw invalid(`${field}.model`, 'must be a non-empty string');
  if (o.apiKeyEnv !== undefined && (typeof o.apiKeyEnv !== 'string' || !/^[A-Z_][A-Z0-9_]*$/.test(o.apiKeyEnv))) {
    throw invalid(`${field}.apiKeyEnv`, 'must be an environment variable name');
  }
  if (o.responses !== undefined && typeof o.responses !== 'boolean') throw invalid(`${field}.responses`, 'must be a boolean');
  if (o.tokenizer !== undefined && (typeof o.tokenizer !== 'string' || !tokenizerKind(o.tokenizer))) throw invalid(`${field}.tokenizer`, TOKENIZER_RULE);
  const out: Exclude<UpstreamTarget, 'sim'> = { url: o.url };
  if (typeof o.model === 'string') out.model = o.model;
  if (typeof o.apiKeyEnv === 'string') out.apiKeyEnv = o.apiKeyEnv;
  if (o.responses === true) out.responses = true;
  if (typeof o.tokenizer === 'string') out.tokenizer = o.tokenizer;
  return out;
}

/** The tokenizer the model's servers name (validateTokenizers: the same on each that names one), or undefined. */
export function upstreamTokenizer(spec: unknown): string | undefined {
  for (const t of Array.isArray(spec) ? spec : [spec]) {
    if (t && typeof t === 'object' && typeof (t as { tokenizer?: unknown }).tokenizer === 'string') return (t as { tokenizer: string }).tokenizer;
  }
  return undefined;
}

/**
 * A model's tokenizer is one: when a server of a list names one, every server names it (a
 * count is the model's, whichever server answers). It is loaded here, so an unreadable or
 * invalid file is refused now rather than at the first request, and the gateway finds it loaded.
 */
async function validateTokenizers(spec: UpstreamSpec): Promise<void> {
  const list = Array.isArray(spec) ? spec : [spec];
  const named = upstreamTokenizer(spec);
  if (named === undefined) return;
  const at = (i: number) => (Array.isArray(spec) ? `upstream[${i}].tokenizer` : 'upstream.tokenizer');
  for (const [i, t] of list.entries()) {
    if (t !== 'sim' && t.tokenizer !== named) throw invalid(at(i), `every upstream of the list must name the same tokenizer (${named}): a prompt's count is the model's`);
  }
  try {
    await reloadTokenizer(named);
  } catch (e) {
    throw invalid(at(list.findIndex((t) => t !== 'sim' && t.tokenizer === named)), (e as Error).message);
  }
}

export function validateUpstream(u: unknown): UpstreamSpec {
  if (Array.isArray(u)) {
    if (u.length === 0) throw invalid('upstream', 'a list needs at least one upstream');
    return u.map((t, i) => validateTarget(t, `upstream[${i}]`));
  }
  return validateTarget(u, 'upstream');
}

function price(v: number | string, field: string): bigint {
  const s = String(v);
  if (!/^\d+$/.test(s) || BigInt(s) > MAX_PRICE_UNITS) throw invalid(field, `must be an integer in 0-${MAX_PRICE_UNITS} (1/10000 USD per million tokens)`);
  return BigInt(s);
}

const MODEL_ID = /^[A-Za-z0-9][A-Za-z0-9._:\-/]{0,199}$/;

/** A model input judged: the row it writes (the tokenizer it names loaded), or the refusal. Nothing is written. */
export async function judgeModel(input: ModelInput): Promise<q.ModelWrite & { upstream: UpstreamSpec; createdAt: Date }> {
  if (!MODEL_ID.test(input.id)) throw invalid('id', 'must be 1-200 characters of letters, digits and . _ : - /');
  if (!input.title.trim()) throw invalid('title', 'must not be empty');
  if (!Number.isInteger(input.contextSize) || input.contextSize <= 0) throw invalid('contextSize', 'must be a positive integer');
  if (!(MODEL_STATUSES as readonly string[]).includes(input.status)) throw invalid('status', `must be one of ${MODEL_STATUSES.join(', ')}`);
  const row = {
    id: input.id,
    title: input.title,
    description: input.description ?? '',
    contextSize: input.contextSize,
    inputPricePerMUnits: price(input.inputTokenPricePerM, 'inputTokenPricePerM'),
    outputPricePerMUnits: price(input.outputTokenPricePerM, 'outputTokenPricePerM'),
    batchInputPricePerMUnits: input.batchInputTokenPricePerM == null ? null : price(input.batchInputTokenPricePerM, 'batchInputTokenPricePerM'),
    batchOutputPricePerMUnits: input.batchOutputTokenPricePerM == null ? null : price(input.batchOutputTokenPricePerM, 'batchOutputTokenPricePerM'),
    cachedInputPricePerMUnits: input.cachedInputTokenPricePerM == null ? null : price(input.cachedInputTokenPricePerM, 'cachedInputTokenPricePerM'),
    status: input.status,
    upstream: validateUpstream(input.upstream),
    createdAt: new Date(0), // writeModel's: when the model first appeared
  };
  await validateTokenizers(row.upstream);
  return row;
}

/** Writes a judged model (its stored upstream key, if any, stays as it is) and announces it. */
export async function writeModel(ctx: Ctx, judged: q.ModelWrite & { createdAt: Date }, existing: q.ModelRow | undefined): Promise<q.ModelRow> {
  // `created` is when the model first appeared
  const row = { ...judged, createdAt: existing?.createdAt ?? new Date(ctx.clock.nowMs()) };
  await q.upsertModel(ctx.db, row);
  ctx.changes.publish({ type: 'catalogue.changed' });
  return { ...row, upstreamKeySealed: existing?.upstreamKeySealed ?? null, upstreamKeySetAt: existing?.upstreamKeySetAt ?? null } as q.ModelRow;
}

/** Creates or replaces a model without checking its upstream (the seed's, and callers that check themselves). */
export async function upsertModel(ctx: Ctx, input: ModelInput): Promise<q.ModelRow> {
  const judged = await judgeModel(input);
  return writeModel(ctx, judged, await q.findModel(ctx.db, input.id));
}

export function isEnabledForTeam(team: Pick<TeamRow, 'enabledModels'>, modelId: string): boolean {
  return team.enabledModels == null || team.enabledModels.includes(modelId);
}

/** Models a team may use: enabled for it and currently available. */
export async function teamUsableModels(ctx: Ctx, team: Pick<TeamRow, 'enabledModels'>): Promise<q.ModelRow[]> {
  const all = await q.listModels(ctx.db);
  return all.filter((m) => m.status === 'available' && isEnabledForTeam(team, m.id));
}

export async function requireModel(ctx: Ctx, id: string): Promise<q.ModelRow> {
  const m = await q.findModel(ctx.db, id);
  if (!m) throw notFound('model', id);
  return m;
}

/** Operator view (camelCase, money as strings). */
export function modelAdminView(m: q.ModelRow) {
  return {
    id: m.id,
    title: m.title,
    description: m.description,
    contextSize: m.contextSize,
    inputTokenPricePerM: m.inputPricePerMUnits.toString(),
    outputTokenPricePerM: m.outputPricePerMUnits.toString(),
    // null: half the interactive price (gateway/admission.ts batchPrices)
    batchInputTokenPricePerM: m.batchInputPricePerMUnits?.toString() ?? null,
    batchOutputTokenPricePerM: m.batchOutputPricePerMUnits?.toString() ?? null,
    // null: the input price (gateway/admission.ts interactivePrices)
    cachedInputTokenPricePerM: m.cachedInputPricePerMUnits?.toString() ?? null,
    status: m.status,
    upstream: m.upstream,
    // write-only: whether a key is stored and when it was last set, never the key
    upstreamKey: { set: m.upstreamKeySealed !== null, setAt: m.upstreamKeySetAt ? Math.floor(m.upstreamKeySetAt.getTime() / 1000) : null },
    created: Math.floor(m.createdAt.getTime() / 1000),
    // OpenAI's model object requires owned_by: the organization part of the id (`org/name`)
    owned_by: m.id.includes('/') ? m.id.slice(0, m.id.indexOf('/')) : 'gantry',
  };
}

/** The interface's LLM model record. */
export function modelRecord(m: q.ModelRow) {
  return {
    id: m.id,
    object: 'model' as const,
    created: Math.floor(m.createdAt.getTime() / 1000),
    // OpenAI's model object requires owned_by: the organization part of the id (`org/name`)
    owned_by: m.id.includes('/') ? m.id.slice(0, m.id.indexOf('/')) : 'gantry',
    input_token_price_per_m: Number(m.inputPricePerMUnits),
    output_token_price_per_m: Number(m.outputPricePerMUnits),
    title: m.title,
    description: m.description,
    context_size: m.contextSize,
  };
}

/** The whole catalogue as the operator sees it; retired models only when asked for. */
export async function listCatalogue(ctx: Ctx, opts: { retired?: boolean | undefined } = {}) {
  return (await q.listModels(ctx.db)).filter((m) => opts.retired === true || m.status !== 'retired').map(modelAdminView);
}
