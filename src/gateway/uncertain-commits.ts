// Requests whose durable write failed on a lost connection: the write may have landed before
// the connection went, while the client was told 503. They are looked up once the database
// answers again (every second until it does); those that did land are counted as
// recorded-but-unanswered, the one way "answered = recorded = billed" can be broken, and
// shown on /metrics (gantry_usage_recorded_unanswered).
import { isDatabaseUnreachable } from '../lib/dependencies.ts';
export class UncertainCommits {
  private ids: string[] = [];
  private timer: NodeJS.Timeout | undefined;
  readonly counts = { recordedUnanswered: 0, uncertain: 0 };
  private readonly landed: (ids: string[]) => Promise<Set<string>>;

  /** `landed`: which of these request ids reached the database. */
  constructor(landed: (ids: string[]) => Promise<Set<string>>) {
    this.landed = landed;
  }

  /** `write`'s failure on a lost connection makes the request doubtful; the failure is passed on. */
  async watch(requestId: string, write: Promise<void>): Promise<void> {
    try {
      await write;
    } catch (err) {
      if (isDatabaseUnreachable(err)) this.add(requestId);
      throw err;
    }
  }

  add(requestId: string): void {
    this.ids.push(requestId);
    this.counts.uncertain = this.ids.length;
    this.timer ??= setTimeout(() => void this.check(), 1000);
    this.timer.unref();
  }

  /** Look up the doubtful writes; retried every second until the database answers. */
  async check(): Promise<void> {
    this.timer = undefined;
    const ids = this.ids.splice(0, 1000);
    if (!ids.length) return;
    try {
      this.counts.recordedUnanswered += (await this.landed(ids)).size;
    } catch {
      this.ids.unshift(...ids); // still unreachable: later
    }
    this.counts.uncertain = this.ids.length;
    if (this.ids.length) {
      this.timer = setTimeout(() => void this.check(), 1000);
      this.timer.unref();
    }
  }

  close(): void {
    if (this.timer) clearTimeout(this.timer);
  }
}
