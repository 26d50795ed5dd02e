import { badPeriod } from './errors.ts';

export const MAX_BILL_RANGE_DAYS = 31;

/**
 * Resolve a bill query window [from, to) from optional Unix-second bounds. A missing end
 * is "now" (or start + maxDays); a missing start is end − maxDays (31 days unless given). Wider
 * windows are refused.
 */
export function resolveBillRange(startS: number | undefined, endS: number | undefined, nowMs: number, maxDays = MAX_BILL_RANGE_DAYS): { fromMs: number; toMs: number } {
  const maxMs = maxDays * 86_400_000;
  let toMs = endS !== undefined ? endS * 1000 : undefined;
  let fromMs = startS !== undefined ? startS * 1000 : undefined;
  if (toMs === undefined) toMs = fromMs !== undefined ? Math.min(fromMs + maxMs, Math.max(nowMs, fromMs)) : nowMs;
  if (fromMs === undefined) fromMs = toMs - maxMs;
  if (toMs < fromMs) {
    throw badPeriod('endTime', 'endTime >= startTime', 'endTime must not be before startTime');
  }
  if (toMs - fromMs > maxMs) {
    throw badPeriod('endTime', `endTime - startTime <= ${maxDays} days`,
      `the queried range must be at most ${maxDays} days; split longer ranges by month or week`, { maxDays });
  }
  // endTime is inclusive at the interface (whole seconds), and so is "now" when it is
  // missing; the window handed to the store is half-open.
  return { fromMs, toMs: endS !== undefined ? toMs + 1000 : toMs + 1 };
}
