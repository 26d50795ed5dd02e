// @ts-check
// What each key and member has spent this month, for budgets shown as Unlimited: the budget
// lists report `used` only where a budget is set (interface.md: a key without one reads
// used=0), so a member or key without a budget would read "$0.00 used" after spending.
// The API-key bills of the month (every charge names the key that caused it, GPU time the key
// that created the instance) give each key's spend; a member's is the sum of their keys', for
// roles that may list every member's keys (Owner, Admin). Roles that may not read bills get
// nothing here, and the pages say so instead of showing zero.
import { can, get } from './api.js';

/** @typedef {import('./api.js').Json} Json */

/** Start of the current UTC month, Unix seconds (budgets' `Recurring` period is the calendar month). */
export function monthStart() {
  const d = new Date();
  return Math.floor(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1) / 1000);
}

/**
 * @typedef {{ byKey: Map<string, bigint>, byMember: Map<string, bigint> | undefined }} MonthSpend
 * `byMember` is undefined where the member of each key cannot be known (a Billing member).
 */

/**
 * This month's spend by key and by member; undefined for a role that may not read bills.
 * @param {string[]} [memberIds] the members to sum (their keys are listed); default: every member (Owner/Admin)
 * @returns {Promise<MonthSpend | undefined>}
 */
export async function monthSpend(memberIds) {
  if (!can('readBilling')) return undefined;
  const now = Math.floor(Date.now() / 1000);
  const bills = await get('/openapi/v1/billing/apikey/bill/list', { cycleType: 'Month', startTime: monthStart(), endTime: now });
  /** @type {Map<string, bigint>} */
  const byKey = new Map();
  for (const b of bills.bills) byKey.set(b.ownerID, (byKey.get(b.ownerID) ?? 0n) + BigInt(b.amount));
  if (!can('manageMembers')) return { byKey, byMember: undefined };
  const ids = memberIds ?? (await get('/openapi/v1/user/team/members')).members.map((/** @type {Json} */ m) => m.memberId);
  /** @type {Map<string, bigint>} */
  const byMember = new Map();
  await Promise.all(ids.map(async (/** @type {string} */ id) => {
    const keys = (await get('/openapi/v1/user/keys', { member_id: id })).keys;
    byMember.set(id, keys.reduce((/** @type {bigint} */ a, /** @type {Json} */ k) => a + (byKey.get(k.keyId) ?? 0n), 0n));
  }));
  return { byKey, byMember };
}
