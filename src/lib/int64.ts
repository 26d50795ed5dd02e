import { invalid } from './errors.ts';

const INT64_MAX = 9223372036854775807n;

/**
 * Read a non-negative int64 sent as a JSON number or a string of digits. Numbers beyond
 * 2^53 were already rounded by JSON.parse, so they are refused instead of silently wrong.
 */
export function parseUInt64(v: unknown, field: string): bigint {
  const s = typeof v === 'number' ? (Number.isSafeInteger(v) ? String(v) : '') : String(v ?? '');
  if (!/^\d+$/.test(s)) throw invalid(field, 'must be a non-negative 64-bit integer (send values above 2^53 as strings)');
  const n = BigInt(s);
  if (n > INT64_MAX) throw invalid(field, 'must fit in a signed 64-bit integer');
  return n;
}
