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

test('Stripe minor units convert to micro-units exactly, by a table of cases; what cannot is refused', async () => {
  const { stripeMinorToMicro, unitsToUsdCents, CurrencyError } = await import('./money.ts');
  const rates = { eur: '1.08', jpy: '0.0067', kwd: '3.25', gbp: '1.2345678901', chf: '0.00000000001' };
  const cases: [bigint | number, string, bigint][] = [
    [1, 'usd', 100_000_000n], // one cent is 100 units
    [1, 'USD', 100_000_000n], // Stripe's codes are lower case; an upper-case one is the same currency
    [500, 'usd', 50_000_000_000n], // $5.00 = 50,000 units
    [999_999_99, 'usd', 9_999_999_900_000_000n], // $999,999.99 = 9,999,999,900 units
    [0, 'usd', 0n],
    [100, 'eur', 10_800_000_000n], // €1.00 at 1.08 = $1.08 = 10,800 units
    [1, 'eur', 108_000_000n], // one euro cent = $0.0108 = 108 units, exact
    [500, 'jpy', 33_500_000_000n], // zero-decimal: ¥500 × 0.0067 = $3.35
    [1_000, 'kwd', 32_500_000_000n], // three decimals: 1.000 KWD × 3.25 = $3.25
    [100, 'gbp', 12_345_678_901n], // £1.00 × 1.2345678901 = $1.2345678901, exact in micro (10^-10 USD)
  ];
  for (const [amount, cur, micro] of cases) assert.equal(stripeMinorToMicro(amount, cur, rates), micro, `${amount} ${cur}`);
  // sums never drift: converting the parts adds up to converting the whole
  assert.equal(stripeMinorToMicro(1, 'eur', rates) * 3n, stripeMinorToMicro(3, 'eur', rates));
  for (const [amount, cur, why] of [
    [1, 'gbp', 'a fraction of a micro-unit'], // 0.012345678901 USD = 123,456,789.01 micro
    [1, 'chf', 'a fraction of a micro-unit'],
    [100, 'sek', 'no configured rate'],
    [-1, 'usd', 'negative'],
    [1.5, 'usd', 'not a whole number'],
    [2 ** 53, 'usd', 'not a whole number'],
  ] as const) {
    assert.throws(() => stripeMinorToMicro(amount, cur, rates), CurrencyError, `${amount} ${cur}: ${why}`);
  }
  assert.throws(() => stripeMinorToMicro(1, 'eur', { eur: '1,08' }), CurrencyError);
  assert.equal(unitsToUsdCents(50_000n), 500n);
  assert.equal(unitsToUsdCents(100n), 1n);
  assert.throws(() => unitsToUsdCents(150n), CurrencyError, 'a cent and a half cannot be charged');
});
