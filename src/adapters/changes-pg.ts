// Domain changes across replicas on PostgreSQL: NOTIFY on send, a dedicated LISTEN
// connection to receive. A dropped listener reconnects with backoff and asks subscribers to
// resync (drop their caches), since notifications sent meanwhile are gone.
import pg from 'pg';
import { randomUUID } from 'node:crypto';
import type { Change, ChangeTransport } from '../domain/changes.ts';
import type { Logger } from '../lib/logger.ts';

const CHANNEL = 'gantry_changes';


export class PgChangeTransport implements ChangeTransport {
  private readonly url: string;
  private readonly pool: pg.Pool;
  private readonly log: Logger;
  /** This process: its own notifications come back to it and are skipped. */
  private readonly origin = randomUUID();
  private client: pg.Client | undefined;
  private closed = false;
  private retryMs = 100;
  private timer: NodeJS.Timeout | undefined;

  constructor(url: string, log: Logger) {
    this.url = url;
    this.log = log;
    // One small pool of its own: a notification must not wait behind the request path's queries.
    this.pool = new pg.Pool({ connectionString: url, max: 2 });
    this.pool.on('error', () => {}); // an idle connection dropped by the server is replaced on next use
  }

  send(change: Change): void {
    this.pool.query('select pg_notify($1, $2)', [CHANNEL, JSON.stringify({ o: this.origin, c: change })])
      .catch((err) => this.log.warn({ err, change: change.type }, 'could not notify other replicas of a change; their caches expire on their own'));
  }

  async start(deliver: (change: Change) => void, resync: () => void): Promise<void> {
    const connect = async (first: boolean): Promise<void> => {
      const client = new pg.Client({ connectionString: this.url });
      client.on('notification', (n) => {
        if (n.channel !== CHANNEL || !n.payload) return;
        try {
          const msg = JSON.parse(n.payload) as { o: string; c: Change };
          if (msg.o !== this.origin) deliver(msg.c);
        } catch { /* not ours */ }
      });
      const lost = (err?: unknown) => {
        if (this.client !== client) return;
        this.client = undefined;
        client.removeAllListeners('error');
        client.on('error', () => {});
        client.end().catch(() => {});
        if (this.closed) return;
        this.log.warn({ err }, 'change listener disconnected; reconnecting');
        this.schedule(() => connect(false).then(resync, () => undefined));
      };
      client.on('error', lost);
      client.on('end', () => lost());
      try {
        await client.connect();
        await client.query(`listen ${CHANNEL}`);
      } catch (err) {
        client.on('error', () => {});
        await client.end().catch(() => {});
        if (first) throw err;
        this.schedule(() => connect(false).then(resync, () => undefined));
        return Promise.reject(err);
      }
      this.retryMs = 100;
      this.client = client;
    };
    await connect(true);
  }

  private schedule(fn: () => void): void {
    if (this.closed || this.timer) return;
    const wait = this.retryMs;
    this.retryMs = Math.min(this.retryMs * 2, 5_000);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      fn();
    }, wait);
    this.timer.unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    const c = this.client;
    this.client = undefined;
    await c?.end().catch(() => {});
    await this.pool.end().catch(() => {});
  }
}
