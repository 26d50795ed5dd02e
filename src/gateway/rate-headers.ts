// OpenAI's x-ratelimit-* response headers, from the window state admission saw.
import type { RateView } from '../domain/spend/counters.ts';

/** Go-style durations as OpenAI sends them: "20ms", "1.5s", "1m0s". */
export function duration(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.ceil(ms))}ms`;
  const s = Math.ceil(ms / 100) / 10;
  if (s < 60) return `${s}s`;
  return `${Math.floor(s / 60)}m${Math.round(s % 60)}s`;
}

export function rateLimitHeaders(limits: { rpm: number | null; tpm: number | null }, v: RateView): Record<string, string> {
  const h: Record<string, string> = {};
  if (limits.rpm !== null) {
    h['x-ratelimit-limit-requests'] = String(limits.rpm);
    h['x-ratelimit-remaining-requests'] = String(Math.max(0, limits.rpm - v.requests));
    h['x-ratelimit-reset-requests'] = duration(v.resetRequestsMs);
  }
  if (limits.tpm !== null) {
    h['x-ratelimit-limit-tokens'] = String(limits.tpm);
    h['x-ratelimit-remaining-tokens'] = String(Math.max(0, limits.tpm - v.tokens));
    h['x-ratelimit-reset-tokens'] = duration(v.resetTokensMs);
  }
  return h;
}
