// An injected clock so tests advance time instead of sleeping.
export interface Clock {
  nowMs(): number;
}

export const systemClock: Clock = { nowMs: () => Date.now() };

export class ManualClock implements Clock {
  private ms: number;
  constructor(startMs = Date.UTC(2026, 10, 15, 12, 0, 0)) {
    this.ms = startMs;
  }
  nowMs(): number {
    return this.ms;
  }
  advance(ms: number): void {
    this.ms += ms;
  }
  set(ms: number): void {
    this.ms = ms;
  }
}

/** Half-open UTC calendar month [start, end) containing `ms`. */
export function monthPeriod(ms: number): { startMs: number; endMs: number } {
  const d = new Date(ms);
  const startMs = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
  const endMs = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
  return { startMs, endMs };
}

