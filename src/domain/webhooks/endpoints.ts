// A team's webhook endpoints: a URL and the events it receives. An endpoint is enabled or
// disabled; one whose attempts all failed for 5 days is disabled by Gantry (deliver.ts),
// the team may disable and enable it (enabling forgets the failures).
import { isIP } from 'node:net';
import { invalid } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import { isPrivateAddress } from '../../lib/private-address.ts';
import * as q from '../../store/webhooks.ts';
import { inTransaction } from '../changes.ts';
import { paging } from '../compute/templates.ts';
import { conflict, endpointNotFound } from './errors.ts';
import { isWebhookEvent, MAX_DESCRIPTION_LENGTH, MAX_ENDPOINTS_PER_TEAM, MAX_URL_LENGTH, WEBHOOK_EVENTS, type WebhookEvent } from './codes.ts';
import type { Webhooks } from './service.ts';

export interface EndpointInput {
  url: string;
  events: string[];
  description?: string | undefined;
}

export interface EndpointUpdate {
  url?: string | undefined;
  events?: string[] | undefined;
  description?: string | undefined;
  /** false disables the endpoint; true enables it again and forgets its failures */
  enabled?: boolean | undefined;
}

/**
 * A URL Gantry may deliver to: http or https, no credentials in it, at most 2048 characters,
 * and (unless the operator allows private addresses) not a loopback, private or link-local
 * IP literal nor `localhost`. A name is resolved, and its addresses checked, at each attempt.
 * For other areas too (a request's extra.webhook.url).
 */
export function checkWebhookUrl(field: string, url: string, allowPrivate: boolean): URL {
  if (url.length > MAX_URL_LENGTH) throw invalid(field, `at most ${MAX_URL_LENGTH} characters`);
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw invalid(field, 'must be an absolute http or https URL');
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') throw invalid(field, `must be http or https, got ${u.protocol.slice(0, -1)}`);
  if (u.username || u.password) throw invalid(field, 'must not carry credentials (user:password@)');
  if (!u.hostname) throw invalid(field, 'must name a host');
  if (!allowPrivate) {
    const host = u.hostname.startsWith('[') ? u.hostname.slice(1, -1) : u.hostname;
    const local = host === 'localhost' || host.endsWith('.localhost');
    if (local || (isIP(host) && isPrivateAddress(host))) {
      throw invalid(field, 'must not be a loopback, private or link-local address (the operator allows them with GANTRY_WEBHOOK_ALLOW_PRIVATE=1)');
    }
  }
  return u;
}

function checkEvents(events: string[]): WebhookEvent[] {
  if (!events.length) throw invalid('events', 'at least one event');
  const seen = new Set<string>();
  for (const e of events) {
    if (!isWebhookEvent(e)) throw invalid('events', `unknown event ${JSON.stringify(e.slice(0, 64))}; one of ${WEBHOOK_EVENTS.join(', ')}`);
    if (seen.has(e)) throw invalid('events', `${e} is listed twice`);
    seen.add(e);
  }
  return events as WebhookEvent[];
}

function checkDescription(d: string | undefined): string {
  if (d !== undefined && d.length > MAX_DESCRIPTION_LENGTH) throw invalid('description', `at most ${MAX_DESCRIPTION_LENGTH} characters`);
  return d ?? '';
}

export async function createEndpoint(w: Webhooks, teamId: string, input: EndpointInput): Promise<string> {
  const url = checkWebhookUrl('url', input.url, w.settings.allowPrivate).toString();
  const events = checkEvents(input.events);
  const description = checkDescription(input.description);
  if ((await q.countEndpoints(w.ctx.db, teamId)) >= MAX_ENDPOINTS_PER_TEAM) {
    throw conflict(`a team has at most ${MAX_ENDPOINTS_PER_TEAM} webhook endpoints`, { rule: `at most ${MAX_ENDPOINTS_PER_TEAM} endpoints` });
  }
  const now = w.ctx.clock.nowMs();
  const id = newId('webhookEndpoint', now);
  await q.insertEndpoint(w.ctx.db, { id, teamId, url, events, description, state: 'enabled', createdAtMs: now, updatedAtMs: now });
  return id;
}

export async function getEndpoint(w: Webhooks, teamId: string, id: string): Promise<q.EndpointRow> {
  const row = await q.findEndpoint(w.ctx.db, teamId, id);
  if (!row) throw endpointNotFound(id);
  return row;
}

export async function listEndpoints(w: Webhooks, teamId: string, p: { pageSize?: number | undefined; pageNum?: number | undefined }): Promise<{ rows: q.EndpointRow[]; total: number }> {
  const { limit, offset } = paging(p.pageSize, p.pageNum);
  return q.listEndpoints(w.ctx.db, teamId, limit, offset);
}

export async function updateEndpoint(w: Webhooks, teamId: string, id: string, u: EndpointUpdate): Promise<q.EndpointRow> {
  const set: Partial<q.NewEndpointRow> = { updatedAtMs: w.ctx.clock.nowMs() };
  if (u.url !== undefined) set.url = checkWebhookUrl('url', u.url, w.settings.allowPrivate).toString();
  if (u.events !== undefined) set.events = checkEvents(u.events);
  if (u.description !== undefined) set.description = checkDescription(u.description);
  const current = await getEndpoint(w, teamId, id);
  if (u.enabled === true && current.state !== 'enabled') {
    Object.assign(set, { state: 'enabled', disabledReason: null, disabledAtMs: null, failingSinceMs: null });
  } else if (u.enabled === false && current.state !== 'disabled') {
    Object.assign(set, { state: 'disabled', disabledReason: 'disabled by the team', disabledAtMs: set.updatedAtMs });
  }
  return inTransaction(w.ctx, async (tx) => {
    const row = await q.updateEndpoint(tx, teamId, id, set);
    if (!row) throw endpointNotFound(id);
    if (set.state === 'disabled') await q.failPendingDeliveries(tx, id, set.updatedAtMs!, 'the endpoint was disabled by the team');
    return row;
  });
}

/** Deletes the endpoint and its delivery log (deliveries still queued are dropped). */
export async function deleteEndpoint(w: Webhooks, teamId: string, id: string): Promise<void> {
  if (!(await q.deleteEndpoint(w.ctx.db, teamId, id))) throw endpointNotFound(id);
}
