// Money inside Gantry is bigint micro-units: 1 unit (1/10000 USD) = 1_000_000 micro.
// Per-request LLM costs are tokens × pricePerMillionTokens micro-units exactly,
// because price is in units per 1e6 tokens and 1 unit = 1e6 micro.
export const MICRO_PER_UNIT = 1_000_000n;

/**
 * The largest amount one request may name, in units: 10^12 units is $100,000,000. In
 * micro-units it is 10^18, within int8 (9.2·10^18) with room for the sums of a few.
 */
export const MAX_AMOUNT_UNITS = 1_000_000_000_000n;

/**
 * The largest price, in units per pricing unit (GPU-hour, GPU-month, GB-month, million
 * tokens): 10^9 units is $100,000. Costs are prices times counts in micro-units: 8 GPUs for
 * 36 months, or 2^31 tokens, stay within int8.
 */
export const MAX_PRICE_UNITS = 1_000_000_000n;

export function unitsToMicro(units: bigint | number | string): bigint {
  return BigInt(units) * MICRO_PER_UNIT;
}

/**
 * The one rounding rule at the edge: round half away from zero to whole units.
 * Used for every amount the interface shows; sums are computed in micro first.
 */
export function microToUnits(micro: bigint): bigint {
  const neg = micro < 0n;
  const abs = neg ? -micro : micro;
  const q = abs / MICRO_PER_UNIT;
  const r = abs % MICRO_PER_UNIT;
  const rounded = r * 2n >= MICRO_PER_UNIT ? q + 1n : q;
  return neg ? -rounded : rounded;
}

export function microToUnitString(micro: bigint): string {
  return microToUnits(micro).toString();
}

/**
 * A total told in parts (a bill's voucher and paid parts, a statement's voucher, cash and
 * debt parts), in whole units that add up to the total shown, exactly. The running sums of
 * the parts, in the order given, are rounded by the one rule and each part is the
 * difference of two consecutive rounded sums: the total and the first part are within half
 * a unit of the exact amounts, every other part within one unit, and none is negative when
 * no exact part is (rounding never decreases a larger sum). Rounding each part on its own
 * would not add up: 337.4 + 58.4 shows as 337 + 58, of a total 395.8 shown as 396.
 */
export function splitMicroToUnits(partsMicro: readonly bigint[]): bigint[] {
  const units: bigint[] = [];
  let sumMicro = 0n;
  let shownUnits = 0n;
  for (const part of partsMicro) {
    sumMicro += part;
    const rounded = microToUnits(sumMicro);
    units.push(rounded - shownUnits);
    shownUnits = rounded;
  }
  return units;
}

/** USD for display fields such as payAmountDisplay (a float by contract), from the units shown beside it. */
export function unitsToUsd(units: bigint): number {
  return Number(units) / 10000;
}

export function maxBig(a: bigint, b: bigint): bigint {
  return a > b ? a : b;
}
export function minBig(a: bigint, b: bigint): bigint {
  return a < b ? a : b;
}

/** An exact decimal of `micro` / 10^`shift`, trailing zeros trimmed (at least `minDecimals`). */
function decimal(micro: bigint, shift: number, minDecimals: number): string {
  const neg = micro < 0n;
  const digits = (neg ? -micro : micro).toString().padStart(shift + 1, '0');
  const whole = digits.slice(0, -shift);
  let frac = digits.slice(-shift).replace(/0+$/, '');
  if (frac.length < minDecimals) frac = frac.padEnd(minDecimals, '0');
  return `${neg ? '-' : ''}${whole}${frac ? `.${frac}` : ''}`;
}

/**
 * An amount for people, exact: in units (1/10000 USD, the interface's unit) and in USD,
 * e.g. "15000 units ($1.50)", "0.3 units ($0.00003)". Messages only; never parsed.
 */
export function describeMicro(micro: bigint): string {
  return `${decimal(micro, 6, 0)} units ($${decimal(micro, 10, 2)})`;
}

/** A dollar amount a person typed that is not one Gantry can take exactly. */
export class DollarsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DollarsError';
  }
}

const UNITS_PER_USD = 10_000n;

/**
 * Dollars as a person types them (`10.50`, `$10.50`, `0.0001`, `1000`) to units, exactly:
 * decimal digits, never a float. An amount finer than a unit ($0.0001) is refused, not
 * rounded: `10.12345` might have meant either neighbour. `what` names the amount in the
 * refusal.
 */
export function usdToUnits(text: string, what = 'the amount'): bigint {
  const m = /^\$?(\d{1,15})(?:\.(\d+))?$/.exec(text.trim());
  if (!m) throw new DollarsError(`${what} must be dollars with at most 4 decimals, like 10.50 or 0.0001; got "${text}"`);
  const frac = (m[2] ?? '').replace(/0+$/, '');
  if (frac.length > 4) {
    throw new DollarsError(`${what} ${text} is finer than Gantry's unit of $0.0001 (1/10000 USD): give at most 4 decimals; it is not rounded`);
  }
  return BigInt(m[1]!) * UNITS_PER_USD + BigInt(frac.padEnd(4, '0'));
}

/** Units as dollars for people, exact: "$10.50", "$0.0001", "-$1.25" (two decimals at least). */
export function unitsToUsdText(units: bigint | string): string {
  const u = BigInt(units);
  const text = decimal(u < 0n ? -u : u, 4, 2);
  return `${u < 0n ? '-' : ''}$${text}`;
}

/** A processor's amount that Gantry cannot take exactly (an unknown currency, a fraction of a micro-unit). */
export class CurrencyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CurrencyError';
  }
}

/**
 * Stripe's currencies whose smallest unit is not a hundredth (stripe.com/docs/currencies):
 * an amount of 500 is ¥500 but $5.00. Every other currency has two decimals.
 */
const MINOR_EXPONENT: Readonly<Record<string, number>> = {
  ...Object.fromEntries(['bif', 'clp', 'djf', 'gnf', 'jpy', 'kmf', 'krw', 'mga', 'pyg', 'rwf', 'ugx', 'vnd', 'vuv', 'xaf', 'xof', 'xpf'].map((c) => [c, 0])),
  ...Object.fromEntries(['bhd', 'jod', 'kwd', 'omr', 'tnd'].map((c) => [c, 3])),
};

/** micro-units in one US dollar: 10,000 units of 10^6 micro each */
const MICRO_PER_USD = UNITS_PER_USD * MICRO_PER_UNIT;

/**
 * An amount in a processor's minor units (Stripe's `amount_total`: cents for USD) to micro-units,
 * exactly. USD needs nothing configured ($0.01 is 100 units); any other currency needs its rate
 * in `usdPer` (US dollars per whole unit of it, a decimal string, e.g. `{ eur: '1.08' }`), and
 * an amount whose value is not a whole number of micro-units is refused, never rounded: a
 * rounded credit would drift from what the processor's books say.
 */
export function stripeMinorToMicro(amountMinor: bigint | number, currency: string, usdPer: Readonly<Record<string, string>> = {}): bigint {
  if (typeof amountMinor === 'number' && !Number.isSafeInteger(amountMinor)) throw new CurrencyError(`amount ${amountMinor} is not a whole number of minor units`);
  const amount = BigInt(amountMinor);
  if (amount < 0n) throw new CurrencyError(`amount ${amount} is negative`);
  const cur = currency.toLowerCase();
  const exponent = BigInt(MINOR_EXPONENT[cur] ?? 2);
  if (cur === 'usd') return (amount * MICRO_PER_USD) / 10n ** exponent;
  const rate = usdPer[cur];
  if (rate === undefined) throw new CurrencyError(`currency ${cur} has no configured rate to USD (only usd is taken without one)`);
  const m = /^(\d{1,15})(?:\.(\d{1,15}))?$/.exec(rate);
  if (!m) throw new CurrencyError(`the rate of ${cur} to USD must be a decimal like 1.08; got "${rate}"`);
  const frac = m[2] ?? '';
  const rateScaled = BigInt(m[1]! + frac); // USD per whole unit × 10^frac.length
  const numerator = amount * rateScaled * MICRO_PER_USD;
  const denominator = 10n ** (exponent + BigInt(frac.length));
  if (numerator % denominator !== 0n) {
    throw new CurrencyError(`${amount} minor units of ${cur} at ${rate} USD each is not a whole number of micro-units (1/10^10 USD); it is not rounded`);
  }
  return numerator / denominator;
}

/** Units (1/10000 USD) as US cents for a processor, exactly: an amount finer than a cent is refused. */
export function unitsToUsdCents(units: bigint): bigint {
  const unitsPerCent = UNITS_PER_USD / 100n;
  if (units % unitsPerCent !== 0n) throw new CurrencyError(`${units} units (${unitsToUsdText(units)}) is not a whole number of cents`);
  return units / unitsPerCent;
}
