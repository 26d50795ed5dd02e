import { badPeriod } from './errors.ts';

export const MAX_BILL_RANGE_DAYS = 31;
const MAX_RANGE_MS = MAX_BILL_RANGE_DAYS * 86_400_000;

/**
 * Resolve a bill query window [from, to) from optional Unix-second bounds. A missing end
 * is "now" (or start + 31 days); a missing start is end − 31 days. Wider windows are refused.
 */
export function resolveBillRange(startS: number | undefined, endS: number | undefined, nowMs: number): { fromMs: number; toMs: number } {
  let toMs = endS !== undefined ? endS * 1000 : undefined;
  let fromMs = startS !== undefined ? startS * 1000 : undefined;
  if (toMs === undefined) toMs = fromMs !== undefined ? Math.min(fromMs + MAX_RANGE_MS, Math.max(nowMs, fromMs)) : nowMs;
  if (fromMs === undefined) fromMs = toMs - MAX_RANGE_MS;
  if (toMs < fromMs) {
    throw badPeriod('endTime', 'endTime >= startTime', 'endTime must not be before startTime');
  }
  if (toMs - fromMs > MAX_RANGE_MS) {
    throw badPeriod('endTime', `endTime - startTime <= ${MAX_BILL_RANGE_DAYS} days`,
      `the queried range must be at most ${MAX_BILL_RANGE_DAYS} days; split longer ranges by month or week`, { maxDays: MAX_BILL_RANGE_DAYS });
  }
  // endTime is inclusive at the interface (whole seconds), and so is "now" when it is
  // missing; the window handed to the store is half-open.
  return { fromMs, toMs: endS !== undefined ? toMs + 1000 : toMs + 1 };
}
