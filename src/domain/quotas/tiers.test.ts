// Tier rules (compat.md): a month's top-ups earn a tier; the higher of it and the
// operator's tier applies. No database.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { maxTier, tierForMonthlyTopup } from './tiers.ts';

const usd = (n: number) => BigInt(n) * 10_000n; // units

test('a month of top-ups earns T2 from $50, T3 from $500, T4 from $3,000, T5 from $10,000', () => {
  assert.equal(tierForMonthlyTopup(0n), 'T1');
  assert.equal(tierForMonthlyTopup(usd(50) - 1n), 'T1');
  assert.equal(tierForMonthlyTopup(usd(50)), 'T2');
  assert.equal(tierForMonthlyTopup(usd(499)), 'T2');
  assert.equal(tierForMonthlyTopup(usd(500)), 'T3');
  assert.equal(tierForMonthlyTopup(usd(3000)), 'T4');
  assert.equal(tierForMonthlyTopup(usd(10000)), 'T5');
  assert.equal(tierForMonthlyTopup(usd(1_000_000)), 'T5');
});

test('the higher tier wins', () => {
  assert.equal(maxTier('T1', 'T3'), 'T3');
  assert.equal(maxTier('T4', 'T2'), 'T4');
  assert.equal(maxTier('T5', 'T5'), 'T5');
});
