// Money inside Gantry is bigint micro-units: 1 unit (1/10000 USD) = 1_000_000 micro.
// Per-request LLM costs are tokens × pricePerMillionTokens micro-units exactly,
// because price is in units per 1e6 tokens and 1 unit = 1e6 micro.
export const MICRO_PER_UNIT = 1_000_000n;

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

/** USD for display fields such as payAmountDisplay (a float by contract). */
export function microToUsd(micro: bigint): number {
  return Number(microToUnits(micro)) / 10000;
}

export function maxBig(a: bigint, b: bigint): bigint {
  return a > b ? a : b;
}
export function minBig(a: bigint, b: bigint): bigint {
  return a < b ? a : b;
}
