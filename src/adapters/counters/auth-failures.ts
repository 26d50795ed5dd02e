// Failed-authentication counts in this process (domain/auth-throttle.ts): one replica's own,
// or every replica's when there is no Redis; also the fallback while Redis is away.
// Fixed windows from a subject's first failure, by the business clock.
import type { AuthFailureCounter, FailureCount } from '../../domain/auth-throttle.ts';

/** Subjects kept at most (addresses of an attack from many); the oldest windows go first. */
const MAX_SUBJECTS = 200_000;

export class MemoryAuthFailures implements AuthFailureCounter {
  private readonly windows = new Map<string, FailureCount>();

  async hit(subjects: string[], _limits: number[], windowMs: number, nowMs: number): Promise<FailureCount[]> {
    return subjects.map((s) => {
      let w = this.windows.get(s);
      if (!w || w.untilMs <= nowMs) {
        this.windows.delete(s); // re-inserted last: the map stays in window order
        w = { n: 0, untilMs: nowMs + windowMs };
        this.windows.set(s, w);
      }
      w.n++;
      this.prune(nowMs);
      return { n: w.n, untilMs: w.untilMs };
    });
  }

  async count(subject: string, nowMs: number): Promise<number> {
    const w = this.windows.get(subject);
    return w && w.untilMs > nowMs ? w.n : 0;
  }

  private prune(nowMs: number): void {
    for (const [s, w] of this.windows) {
      if (w.untilMs > nowMs && this.windows.size <= MAX_SUBJECTS) break;
      this.windows.delete(s);
    }
  }

  async close(): Promise<void> {}
}
