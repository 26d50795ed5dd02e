// @ts-check
// A month's spend as sums (spend.js reads the bills and keys these are made of): the month's
// start in UTC (budgets' `Recurring` period is the calendar month), each key's spend from the
// API-key bills, a member's as the sum of their keys'. Amounts are BigInt units. No DOM:
// test/console-helpers.test.ts checks them.

/**
 * An answer of the API, parsed (as api.js's Json; named here so this module stays apart from the one that fetches).
 * @typedef {any} Json
 */

/**
 * Start of the UTC month of `nowMs`, Unix seconds.
 * @param {number} [nowMs]
 */
export function monthStart(nowMs = Date.now()) {
  const d = new Date(nowMs);
  return Math.floor(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1) / 1000);
}

/**
 * Each key's spend: the sum of its bills' amounts (every charge names the key that caused it,
 * GPU time the key that created the instance).
 * @param {Json[]} bills the API-key bills (`ownerID`, `amount` in units)
 * @returns {Map<string, bigint>}
 */
export function spendByKey(bills) {
  /** @type {Map<string, bigint>} */
  const byKey = new Map();
  for (const b of bills) byKey.set(b.ownerID, (byKey.get(b.ownerID) ?? 0n) + BigInt(b.amount));
  return byKey;
}

/**
 * What a member's keys spent in all (a key without bills spent nothing).
 * @param {Json[]} keys the member's keys (`keyId`)
 * @param {Map<string, bigint>} byKey
 */
export function spendOfKeys(keys, byKey) {
  return keys.reduce((/** @type {bigint} */ a, /** @type {Json} */ k) => a + (byKey.get(k.keyId) ?? 0n), 0n);
}
