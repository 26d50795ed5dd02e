// Stored answers of the Responses API (OpenAI's `store`, default true). Rules:
// - a response is visible to every key of its team and to no one else (another team's id is 404);
// - it is kept `ttlMs` (GANTRY_RESPONSES_TTL_DAYS, 30), then hidden at once and removed by
//   the responses.prune job;
// - `previous_response_id` continues its stored conversation (Responses input items, the
//   output included); naming one that is not there is the client's error (400, as OpenAI).
import type { Ctx } from '../context.ts';
import type { Principal } from '../roles.ts';
import { previousNotFound, responseNotFound } from './errors.ts';
import * as q from '../../store/responses.ts';
import type { Config } from '../../config.ts';

/** Rows removed per statement by the prune, so one pass never holds a long transaction. */
const PRUNE_BATCH = 1000;

/** The responses area's context: the store, and how long an answer is kept. */
export interface Responses {
  ctx: Ctx;
  ttlMs: number;
}

/** The stored responses' context from the graph (the openai area's entry of src/areas.ts). */
export function responsesContext(s: { ctx: Ctx; config: Config }): Responses {
  return { ctx: s.ctx, ttlMs: s.config.responsesTtlMs };
}

export async function saveResponse(responses: Responses, p: Principal, id: string, body: unknown, conversation: unknown[]): Promise<void> {
  const { ctx } = responses;
  const now = ctx.clock.nowMs();
  await q.insertResponse(ctx.db, {
    id, teamId: p.teamId, memberId: p.memberId, keyId: p.keyId, body: JSON.stringify(body), conversation: JSON.stringify(conversation), createdAtMs: now, expiresAtMs: now + responses.ttlMs,
  });
}

export async function getResponse(responses: Responses, p: Principal, id: string): Promise<unknown> {
  const { ctx } = responses;
  const row = await q.findResponse(ctx.db, p.teamId, id, ctx.clock.nowMs());
  if (!row) throw responseNotFound(id);
  return JSON.parse(row.body);
}

/** The stored conversation a request continues. */
export async function getConversation(responses: Responses, p: Principal, id: string): Promise<unknown[]> {
  const { ctx } = responses;
  const row = await q.findResponse(ctx.db, p.teamId, id, ctx.clock.nowMs());
  if (!row) throw previousNotFound(id);
  return JSON.parse(row.conversation) as unknown[];
}

export async function deleteResponse(responses: Responses, p: Principal, id: string): Promise<{ id: string; object: 'response'; deleted: true }> {
  const { ctx } = responses;
  if (!(await q.deleteResponse(ctx.db, p.teamId, id, ctx.clock.nowMs()))) throw responseNotFound(id);
  return { id, object: 'response', deleted: true };
}

/** Remove every expired response; how many. */
export async function pruneResponses(responses: Responses, signal?: AbortSignal): Promise<number> {
  const { ctx } = responses;
  let removed = 0;
  for (;;) {
    const n = await q.deleteExpiredResponses(ctx.db, ctx.clock.nowMs(), PRUNE_BATCH);
    removed += n;
    if (n < PRUNE_BATCH || signal?.aborted) return removed;
  }
}
