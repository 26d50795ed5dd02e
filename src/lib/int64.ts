import { invalid } from './errors.ts';

export const INT64_MAX = 9223372036854775807n;
export const INT64_MIN = -9223372036854775808n;

/**
 * Read a non-negative int64 sent as a JSON number or a string of digits, at most `max`.
 * Numbers beyond 2^53 were already rounded by JSON.parse, so they are refused instead of
 * silently wrong.
 */
export function parseUInt64(v: unknown, field: string, max: bigint = INT64_MAX): bigint {
  const s = typeof v === 'number' ? (Number.isSafeInteger(v) ? String(v) : '') : String(v ?? '');
  if (!/^\d+$/.test(s)) throw invalid(field, 'must be a non-negative 64-bit integer (send values above 2^53 as strings)');
  const n = BigInt(s);
  if (n > max) throw invalid(field, max === INT64_MAX ? 'must fit in a signed 64-bit integer' : `must be an integer in 0-${max}`);
  return n;
}

/** Whether a string of digits (with an optional minus) is a signed 64-bit integer. */
export function isInt64Text(s: string): boolean {
  if (!/^-?\d{1,19}$/.test(s)) return false;
  const n = BigInt(s);
  return n >= INT64_MIN && n <= INT64_MAX;
}
