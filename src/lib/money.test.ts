// The one rounding rule at the edge, and the exact descriptions refusals use. No database.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeMicro, DollarsError, microToUnits, splitMicroToUnits, unitsToMicro, unitsToUsdText, usdToUnits } from './money.ts';

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

test('dollars a person types become units exactly; finer than a unit is refused, never rounded', () => {
  assert.equal(usdToUnits('10.50'), 105000n);
  assert.equal(usdToUnits('$10.50'), 105000n);
  assert.equal(usdToUnits('10'), 100000n);
  assert.equal(usdToUnits('0.0001'), 1n);
  assert.equal(usdToUnits('0.10000'), 1000n, 'trailing zeros are not precision');
  assert.equal(usdToUnits('100000000'), 1_000_000_000_000n);
  // 0.1 + 0.2 as floats is 0.30000000000000004: decimal digits are never a float here
  assert.equal(usdToUnits('0.3'), 3000n);
  assert.equal(usdToUnits('1234567.8901'), 12345678901n);
  assert.throws(() => usdToUnits('10.12345'), (e: Error) => e instanceof DollarsError && /finer than Gantry's unit of \$0\.0001/.test(e.message) && /not rounded/.test(e.message));
  for (const bad of ['', '-5', '1e3', '10,50', '$', '.5', 'ten', '1.2.3', '0x10']) {
    assert.throws(() => usdToUnits(bad, 'the top-up'), (e: Error) => e instanceof DollarsError && /^the top-up must be dollars/.test(e.message), bad);
  }
});

test('units read as dollars, exact', () => {
  assert.equal(unitsToUsdText(105000n), '$10.50');
  assert.equal(unitsToUsdText('1'), '$0.0001');
  assert.equal(unitsToUsdText(0n), '$0.00');
  assert.equal(unitsToUsdText(-12500n), '-$1.25');
  assert.equal(unitsToUsdText(12345678901n), '$1234567.8901');
  for (const u of [0n, 1n, 99n, 105000n, 12345678901n]) assert.equal(usdToUnits(unitsToUsdText(u)), u, 'reads back');
});
