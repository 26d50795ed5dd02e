// Budget input rules and the monthly window, without a database.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AppError } from '../../lib/errors.ts';
import { monthPeriod } from '../../lib/clock.ts';
import { normalizeBudget } from './budgets.ts';

const refused = (f: () => unknown, field: string) => assert.throws(f, (e: AppError) => e.reason === 'INVALID_ARGUMENT' && e.metadata.field === field);

test('budget input: types, the 1.00 USD minimum, the 2^53 - 1 maximum, cycle for Recurring', () => {
  assert.deepEqual(normalizeBudget({ budget_type: 'Unlimited' }), { type: 'Unlimited', limitUnits: 0n, cycle: null });
  assert.deepEqual(normalizeBudget({ budget_type: 'One-time', budget_limit: 10000 }), { type: 'One-time', limitUnits: 10000n, cycle: null });
  assert.deepEqual(normalizeBudget({ budget_type: 'Recurring', budget_limit: '20000', cycle: 'Monthly' }), { type: 'Recurring', limitUnits: 20000n, cycle: 'Monthly' });
  refused(() => normalizeBudget({ budget_type: 'Weekly' }), 'budget_type');
  refused(() => normalizeBudget({ budget_type: 'One-time' }), 'budget_limit');
  refused(() => normalizeBudget({ budget_type: 'One-time', budget_limit: 9999 }), 'budget_limit');
  refused(() => normalizeBudget({ budget_type: 'One-time', budget_limit: '9007199254740992' }), 'budget_limit');
  refused(() => normalizeBudget({ budget_type: 'One-time', budget_limit: 1.5 }), 'budget_limit');
  refused(() => normalizeBudget({ budget_type: 'Recurring', budget_limit: 10000 }), 'cycle');
  refused(() => normalizeBudget({ budget_type: 'Recurring', budget_limit: 10000, cycle: 'Daily' }), 'cycle');
});

test('a Recurring budget counts the UTC calendar month, half-open', () => {
  const p = monthPeriod(Date.UTC(2026, 1, 28, 23, 59, 59, 999));
  assert.equal(new Date(p.startMs).toISOString(), '2026-02-01T00:00:00.000Z');
  assert.equal(new Date(p.endMs).toISOString(), '2026-03-01T00:00:00.000Z');
  const next = monthPeriod(p.endMs);
  assert.equal(next.startMs, p.endMs, 'the end of one month is the start of the next');
  const dec = monthPeriod(Date.UTC(2026, 11, 31, 12));
  assert.equal(new Date(dec.endMs).toISOString(), '2027-01-01T00:00:00.000Z');
});
