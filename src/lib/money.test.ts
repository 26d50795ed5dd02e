// The one rounding rule at the edge, and the exact descriptions refusals use. No database.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeMicro, microToUnits, splitMicroToUnits, unitsToMicro } from './money.ts';

test('micro-units round to whole units half away from zero', () => {
  assert.equal(microToUnits(0n), 0n);
  assert.equal(microToUnits(499_999n), 0n);
  assert.equal(microToUnits(500_000n), 1n);
  assert.equal(microToUnits(1_499_999n), 1n);
  assert.equal(microToUnits(1_500_000n), 2n);
  assert.equal(microToUnits(-500_000n), -1n, 'away from zero on the negative side too');
  assert.equal(microToUnits(-499_999n), 0n);
  assert.equal(microToUnits(unitsToMicro(123_456_789n)), 123_456_789n);
});

test('parts shown with their total add up to it exactly, whatever their fractions', () => {
  for (const parts of [[337_400_000n, 58_400_000n], [400_000n, 400_000n, 400_000n], [1n, 999_999n], [0n, 0n, 2_500_000n]]) {
    const shown = splitMicroToUnits(parts);
    const total = microToUnits(parts.reduce((a, b) => a + b, 0n));
    assert.equal(shown.reduce((a, b) => a + b, 0n), total, `${parts} → ${shown}`);
  }
});

test('amounts are described exactly in units and USD', () => {
  assert.equal(describeMicro(15_000_000_000n), '15000 units ($1.50)');
  assert.equal(describeMicro(300_000n), '0.3 units ($0.00003)');
  assert.equal(describeMicro(0n), '0 units ($0.00)');
  assert.equal(describeMicro(1_750_000_000n), '1750 units ($0.175)');
  assert.equal(describeMicro(1n), '0.000001 units ($0.0000000001)');
});
