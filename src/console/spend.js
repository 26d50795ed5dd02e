// @ts-check
// What each key and member has spent this month, for budgets shown as Unlimited: the budget
// lists report `used` only where a budget is set (interface.md: a key without one reads
// used=0), so a member or key without a budget would read "$0.00 used" after spending.
// The API-key bills of the month (every charge names the key that caused it, GPU time the key
// that created the instance) give each key's spend; a member's is the sum of their keys', for
// roles that may list every member's keys (Owner, Admin). Roles that may not read bills get
// nothing here, and the pages say so instead of showing zero.
import { can, get } from './api.js';
import { monthStart, spendByKey, spendOfKeys } from './spend-sums.js';

/** @typedef {import('./api.js').Json} Json */

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
  const byKey = spendByKey(bills.bills);
  if (!can('manageMembers')) return { byKey, byMember: undefined };
  const ids = memberIds ?? (await get('/openapi/v1/user/team/members')).members.map((/** @type {Json} */ m) => m.memberId);
  /** @type {Map<string, bigint>} */
  const byMember = new Map();
  await Promise.all(ids.map(async (/** @type {string} */ id) => {
    byMember.set(id, spendOfKeys((await get('/openapi/v1/user/keys', { member_id: id })).keys, byKey));
  }));
  return { byKey, byMember };
}
