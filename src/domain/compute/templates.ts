// Templates: reusable instance definitions. Official and community templates are published
// by the operator (no team); private ones belong to a team and only it sees them.
import { AppError, invalid } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import type { Ctx } from '../context.ts';
import * as q from '../../store/compute.ts';
import { checkEnvs, checkLength, checkPort, checkPortType, MAX_PORTS_PER_ENTRY } from './limits.ts';

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
  minCudaVersion?: string | undefined;
}

export interface PublishedTemplateExtras {
  tools?: { name: string; describe: string; port: number; type: string }[];
  recommendCards?: { gpuSpecId: string; cardNum: string }[];
}

const bad = (field: string, rule: string) => invalid(field, rule, 'VALIDATOR_PARAM');

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
  (t.ports ?? []).forEach((p, i) => {
    checkPortType(`template.ports[${i}].type`, p.type);
    if (!Array.isArray(p.ports) || p.ports.length === 0) throw bad(`template.ports[${i}].ports`, 'must list at least one port');
    if (p.ports.length > MAX_PORTS_PER_ENTRY) throw bad(`template.ports[${i}].ports`, `at most ${MAX_PORTS_PER_ENTRY} ports, got ${p.ports.length}`);
    p.ports.forEach((port, j) => checkPort(`template.ports[${i}].ports[${j}]`, port));
  });
  checkEnvs('template.envs', t.envs);
  checkLength('template.minCudaVersion', t.minCudaVersion, 0, 255);
}

function rowOf(t: TemplateInput): Omit<q.TemplateInsert, 'id' | 'createdAt' | 'teamId'> {
  return {
    channel: t.channel, name: t.name, readme: t.readme ?? '', type: t.type, image: t.image, imageAuth: t.imageAuth ?? '',
    startCommand: t.startCommand ?? '', entrypoint: t.entrypoint ?? '', rootfsSize: t.rootfsSize,
    ports: t.ports ?? [], envs: t.envs ?? [], minCudaVersion: t.minCudaVersion ?? '',
  };
}

export async function createTemplate(ctx: Ctx, teamId: string, t: TemplateInput): Promise<string> {
  validateTemplate(t, { tenant: true });
  const now = ctx.clock.nowMs();
  const id = newId('template', now);
  await q.insertTemplate(ctx.db, { id, teamId, ...rowOf(t), createdAt: new Date(now) });
  return id;
}

/** Operator publishing (seeding) of official and community templates, with tools and cards. */
export async function publishTemplate(ctx: Ctx, id: string, t: TemplateInput & PublishedTemplateExtras): Promise<void> {
  validateTemplate(t, { tenant: false });
  if (t.channel === 'private') throw bad('template.channel', 'published templates are official or community');
  await q.upsertTemplate(ctx.db, {
    id, teamId: null, ...rowOf(t), tools: t.tools ?? [], recommendCards: t.recommendCards ?? [], createdAt: new Date(ctx.clock.nowMs()),
  });
}

/** A template the team may see: public ones, or its own private ones. Others answer as missing. */
export async function requireVisibleTemplate(ctx: Ctx, teamId: string, id: string): Promise<q.TemplateRow> {
  const row = await q.findTemplate(ctx.db, id);
  if (!row || (row.teamId !== null && row.teamId !== teamId)) {
    throw new AppError('TEMPLATE_NOT_FOUND', `template ${id} not found`, { resource: 'template', id });
  }
  return row;
}

async function requireOwnTemplate(ctx: Ctx, teamId: string, id: string): Promise<q.TemplateRow> {
  const row = await requireVisibleTemplate(ctx, teamId, id);
  if (row.teamId !== teamId) throw bad('templateId', `template ${id} is ${row.channel}; only the team's private templates can be changed`);
  return row;
}

export async function updateTemplate(ctx: Ctx, teamId: string, id: string, t: TemplateInput): Promise<void> {
  await requireOwnTemplate(ctx, teamId, id);
  validateTemplate(t, { tenant: true });
  await q.updateTemplate(ctx.db, id, rowOf(t));
}

export async function deleteTemplate(ctx: Ctx, teamId: string, id: string): Promise<void> {
  await requireOwnTemplate(ctx, teamId, id);
  await q.deleteTemplate(ctx.db, id);
}

/** Paging of compat.md: pageNum is 1-based and 0 reads as 1; pageSize 0 reads as the default. */
export function paging(pageSize: number | undefined, pageNum: number | undefined, def = 20, max = 1000): { limit: number; offset: number; pageSize: number; pageNum: number } {
  const size = !pageSize ? def : Math.min(pageSize, max);
  const num = !pageNum ? 1 : pageNum;
  return { limit: size, offset: (num - 1) * size, pageSize: size, pageNum: num };
}

export async function listTemplates(ctx: Ctx, teamId: string, f: { channel: string; isMyCommunity: boolean; name?: string | undefined; type?: string | undefined; pageSize?: number | undefined; pageNum?: number | undefined }) {
  if (!(TEMPLATE_CHANNELS as readonly string[]).includes(f.channel)) throw bad('channel', 'must be official, community or private');
  checkLength('name', f.name, 0, 255);
  const p = paging(f.pageSize, f.pageNum);
  // isMyCommunity=true selects the team's own templates; false the operator's public ones.
  const filter: q.TemplateFilter = { limit: p.limit, offset: p.offset, ...(f.name ? { name: f.name } : {}), ...(f.type ? { type: f.type } : {}) };
  if (f.isMyCommunity) filter.teamId = teamId;
  else if (f.channel === 'private') throw bad('channel', 'private templates are listed with isMyCommunity=true');
  else filter.channel = f.channel;
  const { rows, total } = await q.listTemplates(ctx.db, filter);
  return { rows, total, pageSize: p.pageSize, pageNum: p.pageNum };
}

export function templateView(t: q.TemplateRow) {
  return {
    Id: t.id, name: t.name, readme: t.readme, type: t.type, channel: t.channel, image: t.image, imageAuth: t.imageAuth,
    startCommand: t.startCommand, entrypoint: t.entrypoint, rootfsSize: t.rootfsSize, ports: t.ports, envs: t.envs,
    tools: t.tools, createdAt: String(Math.floor(t.createdAt.getTime() / 1000)), recommendCards: t.recommendCards,
    minCudaVersion: t.minCudaVersion,
  };
}
