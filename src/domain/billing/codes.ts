// The billing-method codes of the interface (interface.md, bill rows' `billingMethod`), in
// one place: the ledger, bills, compute, the gateway and the routes' schemas import them.
export const BILLING_METHOD = {
  payAsYouGo: 1,
  subscription: 2,
  refund: 3,
  spot: 4,
  batchApi: 5,
  savingPlan: 6,
  llmMultimodal: 7,
  bareMetalTestDeduction: 8,
} as const;

export type BillingMethod = (typeof BILLING_METHOD)[keyof typeof BILLING_METHOD];
export const BILLING_METHOD_CODES: readonly BillingMethod[] = Object.values(BILLING_METHOD);
/** The range of the codes (request schemas' minimum and maximum). */
export const MIN_BILLING_METHOD: number = Math.min(...BILLING_METHOD_CODES);
export const MAX_BILLING_METHOD: number = Math.max(...BILLING_METHOD_CODES);

export function isBillingMethod(n: number): n is BillingMethod {
  return (BILLING_METHOD_CODES as readonly number[]).includes(n);
}
