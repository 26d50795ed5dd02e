// @ts-check
// Amounts as the console reads and writes them: the API's unit is 1/10000 USD, carried as a
// BigInt (never a float); shown as dollars exactly (money), rounded to cents (usd) or as a
// plain decimal for a spreadsheet (usdDecimal); typed dollars read back into units
// (parseDollars); and the API's messages, which say amounts in units, told in dollars
// (inDollars). No DOM: test/console-helpers.test.ts checks each.

/**
 * 1/10000 USD (a string or number) as dollars.
 * @param {string | number | bigint | null | undefined} units
 */
export function money(units) {
  if (units === undefined || units === null || units === '') return '—';
  const n = BigInt(units);
  const neg = n < 0n;
  const a = neg ? -n : n;
  const dollars = a / 10000n;
  const frac = String(a % 10000n).padStart(4, '0').replace(/0{1,2}$/, '');
  return `${neg ? '−' : ''}$${dollars.toLocaleString('en-US')}.${frac.length < 2 ? frac.padEnd(2, '0') : frac}`;
}

/**
 * 1/10000 USD as dollars with two decimals (cents rounded half away from zero), for reading
 * at a glance: `Money` shows it with the exact amount (money()) on hover.
 * @param {string | number | bigint | null | undefined} units
 */
export function usd(units) {
  if (units === undefined || units === null || units === '') return '—';
  const n = BigInt(units);
  const a = n < 0n ? -n : n;
  const cents = (a + 50n) / 100n;
  return `${n < 0n && cents > 0n ? '−' : ''}$${(cents / 100n).toLocaleString('en-US')}.${String(cents % 100n).padStart(2, '0')}`;
}

/**
 * 1/10000 USD as a plain decimal number of dollars with every digit (`12.3456`, `-0.5`): what
 * a spreadsheet reads from a CSV.
 * @param {string | number | bigint | null | undefined} units
 */
export function usdDecimal(units) {
  if (units === undefined || units === null || units === '') return '';
  const n = BigInt(units);
  const a = n < 0n ? -n : n;
  const frac = String(a % 10000n).padStart(4, '0').replace(/0+$/, '');
  return `${n < 0n ? '-' : ''}${a / 10000n}${frac ? `.${frac}` : ''}`;
}

/**
 * Dollars as typed in a form, as 1/10000 USD (the API's unit), or why they are not an amount
 * in `min`..`max` units (the message says it in dollars).
 * @param {string} text
 * @param {{ min: bigint, max?: bigint }} range
 * @returns {{ units: string } | { error: string }}
 */
export function parseDollars(text, { min, max }) {
  const t = text.trim().replace(/^\$/, '').replace(/,/g, '');
  const m = /^(\d+)(?:\.(\d{0,4}))?$/.exec(t);
  if (!m) return { error: t === '' ? 'enter an amount in dollars' : 'enter dollars, like 30 or 12.50 (at most 4 decimals)' };
  const units = BigInt(/** @type {string} */ (m[1])) * 10000n + BigInt((m[2] ?? '').padEnd(4, '0'));
  if (units < min) return { error: `must be at least ${money(min)}` };
  if (max !== undefined && units > max) return { error: `must be at most ${money(max)}` };
  return { units: String(units) };
}

/**
 * An API message as the console shows it: in dollars, never in the API's units. The API says
 * amounts for clients as "15000 units ($1.50)" (lib/money.ts describeMicro) and integers
 * "(1/10000 USD)"; the console asks for and shows dollars.
 * @param {string} message
 */
export function inDollars(message) {
  return message
    .replace(/-?[\d.]+ units \((-?\$[\d.,]+)\)/g, '$1')
    .replace(/ \(1\/10000 USD\)/g, '')
    .replace(/\b(\d+) \((\d+\.\d\d) USD\)/g, '$$$2')
    // any other amount in units: its dollars, every digit kept
    .replace(/(-?\d+(?:\.\d+)?) units\b/g, (_, n) => `$${(Number(n) / 10000).toFixed(Math.max(2, Math.min(10, (String(n).split('.')[1]?.length ?? 0) + 4))).replace(/(\.\d\d\d*?)0+$/, '$1')}`);
}
