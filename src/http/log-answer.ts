// Answers a log request, of any log route (serverless endpoints and workers, GPU instances;
// compat.md: "Logs are URLs (plain text; ?follow=1&sse=1&timestamps=1&tail=200 streams SSE)"):
// the tail as text/plain, one line per line; with sse=1 as server-sent events (`id: <seq>`,
// `data: <line>`); with follow=1 the answer stays open and new lines follow until the client
// goes, the source ends, or the app closes. A team holds at most `GANTRY_LOG_FOLLOWS_PER_TEAM`
// follows at once on a replica, all log routes together: each one polls its source, and 200
// of them once slowed /healthz to 660 ms.
import { EventEmitter } from 'node:events';
import { PassThrough } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../lib/errors.ts';
import { DEFAULT_TAIL, followLogs, formatLine, lastSeq, logTail, MAX_TAIL, type LogLine, type LogReader } from '../domain/logs/follow.ts';
import { principalOf, type App } from './types.ts';
import type { DocResponse } from './schemas.ts';
import { Type } from 'typebox';

const Flag = (description: string) => Type.Optional(Type.String({ enum: ['0', '1', 'true', 'false'], description }));

/** The query of every log route, besides whose log it is. */
export const LogQueryFields = {
  tail: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_TAIL, description: `the last N lines (default ${DEFAULT_TAIL})` })),
  timestamps: Flag('1: each line starts with its time (ISO 8601 UTC)'),
  follow: Flag('1: keep the answer open and send new lines as they come'),
  sse: Flag('1: server-sent events, one `data: <line>` event per line (with `id: <seq>`; Last-Event-ID resumes)'),
};

export interface LogQueryValues {
  tail?: number | undefined;
  timestamps?: string | undefined;
  follow?: string | undefined;
  sse?: string | undefined;
}

/** SSE comment sent when nothing else was for this long, so proxies keep the connection. */
const KEEPALIVE_MS = 15_000;

const on = (v: string | undefined) => v === '1' || v === 'true';

/** How long a client refused for too many follows is told to wait before trying again. */
const FOLLOW_RETRY_AFTER_S = 5;

const byApp = new WeakMap<App, LogFollowers>();

/**
 * Open follows of one app, counted per team (every log route shares them) and ended (and
 * waited for) when it closes: a follower would otherwise hold close() open. Emits
 * `released` (teamId) when a follow ends.
 */
export class LogFollowers extends EventEmitter {
  private readonly open = new Map<AbortController, Promise<void>>();
  private readonly perTeam = new Map<string, number>();
  private closing = false;

  /** The app's one set of follows (created with `maxPerTeam` at the first call). */
  static of(app: App, maxPerTeam: number): LogFollowers {
    let f = byApp.get(app);
    if (!f) {
      f = new LogFollowers(app, maxPerTeam);
      byApp.set(app, f);
    }
    return f;
  }

  private readonly maxPerTeam: number;

  private constructor(app: App, maxPerTeam: number) {
    super();
    this.maxPerTeam = maxPerTeam;
    app.addHook('preClose', async () => {
      this.closing = true;
      for (const c of this.open.keys()) c.abort();
      await Promise.all(this.open.values());
    });
  }

  /** Follows the team holds now. */
  following(teamId: string): number {
    return this.perTeam.get(teamId) ?? 0;
  }

  /** Take one of the team's follows, or 429; the release function gives it back (once). */
  take(teamId: string): () => void {
    const n = this.following(teamId);
    if (n >= this.maxPerTeam) {
      throw new AppError('RATE_LIMIT_EXCEEDED', `your team already follows ${n} logs at once, the most it may (GANTRY_LOG_FOLLOWS_PER_TEAM); close one, or read the log without follow=1`,
        { rule: 'log_follows_per_team', limit: this.maxPerTeam }, { 'retry-after': String(FOLLOW_RETRY_AFTER_S) });
    }
    this.perTeam.set(teamId, n + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = this.following(teamId) - 1;
      if (left > 0) this.perTeam.set(teamId, left);
      else this.perTeam.delete(teamId);
      this.emit('released', teamId);
    };
  }
  /** Track a follow until `ended` settles (one that starts while the app closes stops at once). */
  add(c: AbortController, ended: Promise<void>): void {
    if (this.closing) c.abort();
    this.open.set(c, ended);
    void ended.finally(() => this.open.delete(c));
  }
}

function sseEvent(l: LogLine, timestamps: boolean): string {
  // a line holding line breaks is one event of several data fields
  return `id: ${l.seq}\n${formatLine(l, timestamps).split(/\r\n|\r|\n/).map((t) => `data: ${t}`).join('\n')}\n\n`;
}

export async function answerLogs(followers: LogFollowers, src: LogReader, q: LogQueryValues, req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const timestamps = on(q.timestamps);
  const sse = on(q.sse);
  const follow = on(q.follow);
  // taken before any await (no race past the bound), given back when the follow ends
  const release = follow ? followers.take(principalOf(req).teamId) : () => {};
  const stop = new AbortController();
  // a client that left already, or leaves while the tail is read: the follow ends at once
  if (follow) reply.raw.once('close', () => stop.abort());
  if (follow && reply.raw.destroyed) stop.abort();
  try {
    // an SSE client reconnecting says which line it saw last
    const lastEventId = req.headers['last-event-id'];
    const afterSeq = typeof lastEventId === 'string' && /^[0-9]{1,15}$/.test(lastEventId) ? Number(lastEventId) : 0;
    const tail = await logTail(src, q.tail ?? DEFAULT_TAIL, afterSeq);
    const render = (lines: LogLine[]) => lines.map((l) => (sse ? sseEvent(l, timestamps) : `${formatLine(l, timestamps)}\n`)).join('');
    reply.header('cache-control', 'no-cache');
    reply.type(sse ? 'text/event-stream; charset=utf-8' : 'text/plain; charset=utf-8');
    if (!follow) return reply.send(render(tail));

    const from = tail.length ? tail[tail.length - 1]!.seq : Math.max(afterSeq, await lastSeq(src));
    const out = new PassThrough();
    // headers go out at once (a follow with no line yet must not leave the client waiting for
    // them); the connection is this answer's alone, closed when it ends
    reply.raw.once('pipe', () => reply.raw.flushHeaders());
    reply.header('connection', 'close');
    out.write(render(tail));
    let sentAt = Date.now();
    reply.send(out);
    followers.add(stop, (async () => {
      try {
        for await (const lines of followLogs(src, from, stop.signal, {
          idle: () => {
            if (sse && Date.now() - sentAt >= KEEPALIVE_MS) {
              out.write(': keep-alive\n\n');
              sentAt = Date.now();
            }
          },
        })) {
          out.write(render(lines));
          sentAt = Date.now();
        }
      } catch (err) {
        req.log.warn({ err }, 'following a log failed');
      } finally {
        out.end();
        release();
      }
    })());
    return reply;
  } catch (e) {
    release();
    throw e;
  }
}

/** The 200 answers of a log route, for the OpenAPI document. */
export const LogAnswers: Record<number, DocResponse> = {
  200: {
    description: 'The log: plain text, or server-sent events with sse=1',
    content: {
      'text/plain': { schema: Type.String({ description: 'one line per log line (with follow=1 the answer stays open)' }) },
      'text/event-stream': { schema: Type.String({ description: 'with sse=1: `id: <seq>` and `data: <line>` per line; `: keep-alive` comments while idle' }) },
    },
  },
};
