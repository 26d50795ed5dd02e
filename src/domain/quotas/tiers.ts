// Account tiers. The effective tier is the higher of the operator-set tier and the tier
// earned by monthly top-ups (spec/compat.md: current and two previous calendar months).
export const TIERS = ['T1', 'T2', 'T3', 'T4', 'T5'] as const;
export type Tier = (typeof TIERS)[number];

/** Minimum top-up in one calendar month for each tier, in units (1/10000 USD). */
export const TIER_TOPUP_THRESHOLD_UNITS: Record<Tier, bigint> = {
  T1: 0n,
  T2: 50n * 10000n,
  T3: 500n * 10000n,
  T4: 3000n * 10000n,
  T5: 10000n * 10000n,
};

export function tierForMonthlyTopup(units: bigint): Tier {
  let tier: Tier = 'T1';
  for (const t of TIERS) if (units >= TIER_TOPUP_THRESHOLD_UNITS[t]) tier = t;
  return tier;
}

export function maxTier(a: Tier, b: Tier): Tier {
  return TIERS.indexOf(a) >= TIERS.indexOf(b) ? a : b;
}
