// The Redis connection of the adapters that share state across replicas through small
// commands (the serverless worker load, the failed-authentication counts): no offline queue
// (while disconnected a command fails at once, nothing waits for Redis), no retries of a
// command, quick reconnects, and one deadline per command measured by withDeadline (ioredis'
// commandTimeout is a plain timer that calls Redis down after the event loop was merely busy).
// The first commands wait (at most 2 s) for the first connection; later outages fail at once.
import { Redis } from 'ioredis';
import { DependencyDown } from '../lib/dependencies.ts';
import { withDeadline } from '../lib/deadline.ts';

export const REDIS_OPTIONS = {
  enableAutoPipelining: true,
  enableOfflineQueue: false,
  maxRetriesPerRequest: 0,
  retryStrategy: (times: number) => Math.min(25 * 2 ** Math.min(times, 3), 200),
};

export class RedisClient {
  readonly redis: Redis;
  private readonly commandTimeoutMs: number;
  private firstConnect: Promise<void> | null;

  constructor(url: string, commandTimeoutMs: number) {
    this.commandTimeoutMs = commandTimeoutMs;
    this.redis = new Redis(url, REDIS_OPTIONS);
    this.redis.on('error', () => {}); // told through the commands that fail (DependencyDown)
    this.firstConnect = new Promise<void>((resolve) => {
      const t = setTimeout(resolve, 2_000);
      t.unref();
      this.redis.once('ready', () => {
        clearTimeout(t);
        resolve();
      });
    }).then(() => {
      this.firstConnect = null;
    });
  }

  /** A command within the deadline; Redis unreachable or late is DependencyDown('redis'), a script error stays what it is (a bug). */
  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.firstConnect !== null) await this.firstConnect;
    try {
      return await withDeadline(fn(), this.commandTimeoutMs);
    } catch (err) {
      if ((err as Error)?.name === 'ReplyError') throw err;
      throw new DependencyDown('redis', err);
    }
  }
}
