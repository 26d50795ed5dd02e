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

/** Rows removed per statement by the prune, so one pass never holds a long transaction. */
const PRUNE_BATCH = 1000;

export class ResponseStore {
  private readonly ctx: Ctx;
  private readonly ttlMs: number;

  constructor(ctx: Ctx, ttlMs: number) {
    this.ctx = ctx;
    this.ttlMs = ttlMs;
  }

  async save(p: Principal, id: string, body: unknown, conversation: unknown[]): Promise<void> {
    const now = this.ctx.clock.nowMs();
    await q.insertResponse(this.ctx.db, {
      id, teamId: p.teamId, memberId: p.memberId, keyId: p.keyId, body: JSON.stringify(body), conversation: JSON.stringify(conversation), createdAtMs: now, expiresAtMs: now + this.ttlMs,
    });
  }

  async get(p: Principal, id: string): Promise<unknown> {
    const row = await q.findResponse(this.ctx.db, p.teamId, id, this.ctx.clock.nowMs());
    if (!row) throw responseNotFound(id);
    return JSON.parse(row.body);
  }

  /** The stored conversation a request continues. */
  async conversation(p: Principal, id: string): Promise<unknown[]> {
    const row = await q.findResponse(this.ctx.db, p.teamId, id, this.ctx.clock.nowMs());
    if (!row) throw previousNotFound(id);
    return JSON.parse(row.conversation) as unknown[];
  }

  async delete(p: Principal, id: string): Promise<{ id: string; object: 'response'; deleted: true }> {
    if (!(await q.deleteResponse(this.ctx.db, p.teamId, id, this.ctx.clock.nowMs()))) throw responseNotFound(id);
    return { id, object: 'response', deleted: true };
  }

  /** Remove every expired response; how many. */
  async prune(signal?: AbortSignal): Promise<number> {
    let removed = 0;
    for (;;) {
      const n = await q.deleteExpiredResponses(this.ctx.db, this.ctx.clock.nowMs(), PRUNE_BATCH);
      removed += n;
      if (n < PRUNE_BATCH || signal?.aborted) return removed;
    }
  }
}
