// Templates: reusable instance definitions. Official and community templates are published
// by the operator (no team); private ones belong to a team and only it sees them.
// `imageAuth` is a registry credential id (rga_…), kept and shown as given, or an inline
// `<username>:<password>`, sealed (AES-256-GCM) and shown as `<username>:****` to every
// role; only an instance's workload spec ever gets it opened (compute.ts).
import { newId } from '../../lib/ids.ts';
import type { SecretBox } from '../../lib/secret-box.ts';
import type { Ctx } from '../context.ts';
import type { Compute } from './compute.ts';
import * as q from '../../store/compute.ts';
import { checkEnvs, checkLength, checkPort, checkPortType, envsOf, MAX_EXPOSED_PORTS } from './limits.ts';
import { isCredentialId, parseInlineCredential } from './registry-auths.ts';
import { bad, computeNotFound } from './errors.ts';

export const TEMPLATE_CHANNELS = ['official', 'community', 'private'] as const;
export const TEMPLATE_TYPES = ['instance'] as const;

export interface TemplateInput {
  name: string;
  readme?: string | undefined;
  type: string;
  channel: string;
  image: string;
  imageAuth?: string | undefined;
  startCommand?: string | undefined;
  entrypoint?: string | undefined;
  rootfsSize: number;
  ports?: { type: string; ports: number[] }[] | undefined;
  envs?: { key: string; value: string }[] | undefined;
  /** alias of envs (compat.md) */
  env?: { key: string; value: string }[] | undefined;
  minCudaVersion?: string | undefined;
}

export interface PublishedTemplateExtras {
  tools?: { name: string; describe: string; port: number; type: string }[];
  recommendCards?: { gpuSpecId: string; cardNum: string }[];
}


/** Every limit of the interface, each failure naming the field and the rule. */
export function validateTemplate(t: TemplateInput, opts: { tenant: boolean }): void {
  checkLength('template.name', t.name, 1, 255);
  checkLength('template.readme', t.readme, 0, 102400);
  if (!(TEMPLATE_TYPES as readonly string[]).includes(t.type)) throw bad('template.type', `must be instance, got "${t.type}"`);
  if (opts.tenant && t.channel !== 'private') throw bad('template.channel', `tenants may only create private templates, got "${t.channel}"`);
  if (!(TEMPLATE_CHANNELS as readonly string[]).includes(t.channel)) throw bad('template.channel', 'must be official, community or private');
  checkLength('template.image', t.image, 1, 500);
  checkLength('template.imageAuth', t.imageAuth, 0, 255);
  checkLength('template.startCommand', t.startCommand, 0, 2047);
  checkLength('template.entrypoint', t.entrypoint, 0, 2047);
  if (!Number.isInteger(t.rootfsSize) || t.rootfsSize <= 0) throw bad('template.rootfsSize', `must be an integer greater than 0 (GB), got ${t.rootfsSize}`);
  let exposed = 0;
  (t.ports ?? []).forEach((p, i) => {
    checkPortType(`template.ports[${i}].type`, p.type);
    if (!Array.isArray(p.ports) || p.ports.length === 0) throw bad(`template.ports[${i}].ports`, 'must list at least one port');
    if (p.ports.length > MAX_EXPOSED_PORTS) throw bad(`template.ports[${i}].ports`, `at most ${MAX_EXPOSED_PORTS} ports, got ${p.ports.length}`);
    for (const [j, port] of p.ports.entries()) checkPort(`template.ports[${i}].ports[${j}]`, port);
    exposed += p.ports.length;
  });
  // the interface's limit is on the template: every entry's ports together
  if (exposed > MAX_EXPOSED_PORTS) throw bad('template.ports', `at most ${MAX_EXPOSED_PORTS} exposed ports in total, got ${exposed}`);
  const { field, envs } = envsOf('template.', t);
  checkEnvs(field, envs);
  checkLength('template.minCudaVersion', t.minCudaVersion, 0, 255);
}

/** What reads show in place of an inline credential: the username, never the password. */
export const MASKED_PASSWORD = '****';

export function maskImageAuth(plain: string): string {
  const sep = plain.indexOf(':');
  return sep > 0 ? `${plain.slice(0, sep)}:${MASKED_PASSWORD}` : MASKED_PASSWORD;
}

interface StoredImageAuth {
  imageAuth: string;
  imageAuthEnc: string;
}

/**
 * `imageAuth` as stored. A credential id must name one of the team's credentials (published
 * templates have no team: not checked). Anything else is an inline credential, sealed. A
 * value equal to the current mask keeps the current credential, so a template read and
 * written back (get, then update) does not turn the mask into its password.
 */
async function storedImageAuth(ctx: Ctx, secrets: SecretBox | undefined, teamId: string | null, value: string | undefined, current?: q.TemplateRow): Promise<StoredImageAuth> {
  const field = 'template.imageAuth';
  if (!value) return { imageAuth: '', imageAuthEnc: '' };
  if (current?.imageAuthEnc && value === current.imageAuth) return { imageAuth: current.imageAuth, imageAuthEnc: current.imageAuthEnc };
  if (isCredentialId(value)) {
    if (teamId !== null) {
      const auth = await q.findRegistryAuth(ctx.db, value);
      if (!auth || auth.teamId !== teamId) throw bad(field, 'names no registry credential of this team');
    }
    return { imageAuth: value, imageAuthEnc: '' };
  }
  parseInlineCredential(field, value);
  if (!secrets) throw new Error('sealing an inline template credential needs the secret key');
  return { imageAuth: maskImageAuth(value), imageAuthEnc: secrets.seal(value) };
}

/** The inline credential of a template, opened for an instance's image pull; undefined when it names none. */
export function openTemplateCredential(secrets: SecretBox, t: q.TemplateRow): { username: string; password: string } | undefined {
  if (!t.imageAuthEnc) return undefined;
  let plain: string;
  try {
    plain = secrets.open(t.imageAuthEnc);
  } catch {
    throw bad('templateId', `the image credential of template ${t.id} cannot be opened with this server's secret key; save the template's imageAuth again`);
  }
  return parseInlineCredential('templateId', plain);
}

function rowOf(t: TemplateInput, auth: StoredImageAuth): Omit<q.TemplateInsert, 'id' | 'createdAt' | 'teamId'> {
  return {
    channel: t.channel, name: t.name, readme: t.readme ?? '', type: t.type, image: t.image, ...auth,
    startCommand: t.startCommand ?? '', entrypoint: t.entrypoint ?? '', rootfsSize: t.rootfsSize,
    ports: t.ports ?? [], envs: envsOf('template.', t).envs ?? [], minCudaVersion: t.minCudaVersion ?? '',
  };
}

export async function createTemplate(c: Compute, teamId: string, t: TemplateInput): Promise<string> {
  const { ctx, secrets } = c;
  validateTemplate(t, { tenant: true });
  const auth = await storedImageAuth(ctx, secrets, teamId, t.imageAuth);
  const now = ctx.clock.nowMs();
  const id = newId('template', now);
  await q.insertTemplate(ctx.db, { id, teamId, ...rowOf(t, auth), createdAt: new Date(now) });
  return id;
}

/** Operator publishing (seeding) of official and community templates, with tools and cards. */
export async function publishTemplate(ctx: Ctx, id: string, t: TemplateInput & PublishedTemplateExtras, secrets?: SecretBox): Promise<void> {
  validateTemplate(t, { tenant: false });
  if (t.channel === 'private') throw bad('template.channel', 'published templates are official or community');
  const auth = await storedImageAuth(ctx, secrets, null, t.imageAuth, await q.findTemplate(ctx.db, id));
  await q.upsertTemplate(ctx.db, {
    id, teamId: null, ...rowOf(t, auth), tools: t.tools ?? [], recommendCards: t.recommendCards ?? [], createdAt: new Date(ctx.clock.nowMs()),
    retiredAt: null, // publishing again puts a retired template back
  });
}

/** The shape of a published template's id: `tpl_` and lower-case letters, digits and `_` (the seed's `tpl_official_vllm`). */
const PUBLISHED_ID = /^tpl_[a-z0-9_]{1,64}$/;

/** The operator publishes (creates or replaces) an official or community template through the admin API. */
export async function publishTemplateAsOperator(c: Compute, id: string, t: TemplateInput & PublishedTemplateExtras): Promise<void> {
  if (!PUBLISHED_ID.test(id)) throw bad('id', 'must be tpl_ and 1-64 lower-case letters, digits or _');
  const existing = await q.findTemplate(c.ctx.db, id);
  if (existing && existing.teamId !== null) throw bad('id', `template ${id} is a team's private template`);
  await publishTemplate(c.ctx, id, t, c.secrets);
}

/**
 * Retires a published template: it leaves every team's list and creates refuse it; the
 * instances made from it keep what they copied from it (an instance reads its template only
 * when it is created).
 */
export async function retireTemplate(c: Compute, id: string): Promise<void> {
  if (!(await q.retirePublishedTemplate(c.ctx.db, id, new Date(c.ctx.clock.nowMs())))) throw computeNotFound('template', id, 'published template');
}

/** A template the team may see: public ones, or its own private ones. Others answer as missing. */
export async function requireVisibleTemplate(ctx: Ctx, teamId: string, id: string): Promise<q.TemplateRow> {
  const row = await q.findTemplate(ctx.db, id);
  if (!row || (row.teamId !== null && row.teamId !== teamId)) {
    throw computeNotFound('template', id);
  }
  return row;
}

/** A template an instance may be created from now: visible to the team, and not retired. */
export async function requireUsableTemplate(ctx: Ctx, teamId: string, id: string): Promise<q.TemplateRow> {
  const row = await requireVisibleTemplate(ctx, teamId, id);
  if (row.retiredAt) throw bad('templateId', `template ${id} is retired: no new instance is created from it`);
  return row;
}

async function requireOwnTemplate(ctx: Ctx, teamId: string, id: string): Promise<q.TemplateRow> {
  const row = await requireVisibleTemplate(ctx, teamId, id);
  if (row.teamId !== teamId) throw bad('templateId', `template ${id} is ${row.channel}; only the team's private templates can be changed`);
  return row;
}

export async function updateTemplate(c: Compute, teamId: string, id: string, t: TemplateInput): Promise<void> {
  const { ctx, secrets } = c;
  const current = await requireOwnTemplate(ctx, teamId, id);
  validateTemplate(t, { tenant: true });
  await q.updateTemplate(ctx.db, id, rowOf(t, await storedImageAuth(ctx, secrets, teamId, t.imageAuth, current)));
}

/**
 * Start-time part of migration 0005: `image_auth` values stored in clear before sealing
 * existed are sealed now (it needs the app's key, so it cannot be SQL). Credential ids stay
 * as they are. Idempotent, and safe when several replicas start at once. Returns how many
 * it sealed.
 */
export async function sealClearTemplateImageAuths(c: Compute): Promise<number> {
  const { ctx, secrets } = c;
  let sealed = 0;
  for (const t of await q.listTemplatesWithUnsealedImageAuth(ctx.db)) {
    if (isCredentialId(t.imageAuth)) continue;
    if (await q.sealTemplateImageAuth(ctx.db, t.id, t.imageAuth, maskImageAuth(t.imageAuth), secrets.seal(t.imageAuth))) sealed++;
  }
  return sealed;
}

export async function deleteTemplate(ctx: Ctx, teamId: string, id: string): Promise<void> {
  await requireOwnTemplate(ctx, teamId, id);
  await q.deleteTemplate(ctx.db, id);
}

/** Paging of the GPU lists (compat.md): a missing or 0 pageSize reads as 10, a missing or 0 pageNum as 1. */
export const DEFAULT_PAGE_SIZE = 10;
export const MAX_PAGE_SIZE = 100;
export const MAX_PAGE_NUM = 1_000_000;

/** Out-of-range values are refused (not clamped), naming the parameter the client sent. */
export function paging(pageSize: number | undefined, pageNum: number | undefined, names = { size: 'pageSize', num: 'pageNum' }): { limit: number; offset: number; pageSize: number; pageNum: number } {
  if (pageSize !== undefined && (!Number.isInteger(pageSize) || pageSize < 0 || pageSize > MAX_PAGE_SIZE)) {
    throw bad(names.size, `must be an integer in 0-${MAX_PAGE_SIZE} (0 or missing reads as ${DEFAULT_PAGE_SIZE}), got ${pageSize}`);
  }
  if (pageNum !== undefined && (!Number.isInteger(pageNum) || pageNum < 0 || pageNum > MAX_PAGE_NUM)) {
    throw bad(names.num, `must be an integer in 0-${MAX_PAGE_NUM} (1-based; 0 or missing reads as 1), got ${pageNum}`);
  }
  const size = pageSize || DEFAULT_PAGE_SIZE;
  const num = pageNum || 1;
  return { limit: size, offset: (num - 1) * size, pageSize: size, pageNum: num };
}

/**
 * `channel` may be a comma-joined list; missing (or empty) means all three. Which templates a
 * channel means: official and community ones are the operator's (public), private ones the
 * caller team's. `isMyCommunity` true asks for the team's own, false for public ones; missing,
 * each channel reads as above (compat.md: the vendor's clients omit it).
 */
export function parseChannels(raw: string | undefined): string[] {
  const parts = (raw ?? '').split(',').map((c) => c.trim()).filter(Boolean);
  for (const c of parts) {
    if (!(TEMPLATE_CHANNELS as readonly string[]).includes(c)) throw bad('channel', `must be official, community or private (or a comma-joined list of them), got "${c}"`);
  }
  return parts.length ? [...new Set(parts)] : [...TEMPLATE_CHANNELS];
}

export async function listTemplates(ctx: Ctx, teamId: string, f: { channel?: string | undefined; isMyCommunity?: boolean | undefined; name?: string | undefined; type?: string | undefined; pageSize?: number | undefined; pageNum?: number | undefined }) {
  const channels = parseChannels(f.channel);
  checkLength('name', f.name, 0, 255);
  const p = paging(f.pageSize, f.pageNum);
  const publicChannels = channels.filter((c) => c !== 'private');
  const filter: q.TemplateFilter = { limit: p.limit, offset: p.offset, ...(f.name ? { name: f.name } : {}), ...(f.type ? { type: f.type } : {}) };
  if (f.isMyCommunity === true) {
    filter.teamId = teamId; // the team's own templates, whatever channel was named (as before)
  } else if (f.isMyCommunity === false) {
    if (!publicChannels.length) throw bad('channel', 'private templates are listed with isMyCommunity=true (or without isMyCommunity)');
    filter.publicChannels = publicChannels;
  } else {
    if (channels.includes('private')) filter.teamId = teamId;
    filter.publicChannels = publicChannels;
  }
  const { rows, total } = await q.listTemplates(ctx.db, filter);
  return { rows, total, pageSize: p.pageSize, pageNum: p.pageNum };
}

/** The template object of the interface; `imageAuth` is an id or a mask, never a password. */
export function templateView(t: q.TemplateRow) {
  return {
    Id: t.id, name: t.name, readme: t.readme, type: t.type, channel: t.channel, image: t.image, imageAuth: t.imageAuth,
    startCommand: t.startCommand, entrypoint: t.entrypoint, rootfsSize: t.rootfsSize, ports: t.ports, envs: t.envs,
    tools: t.tools, createdAt: String(Math.floor(t.createdAt.getTime() / 1000)), recommendCards: t.recommendCards,
    minCudaVersion: t.minCudaVersion,
  };
}
