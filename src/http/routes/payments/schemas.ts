import { Type } from 'typebox';

/** Gantry's own paths (docs/compat-decisions.md, "Card top-ups"): the interface has no payments. */
export const PAYMENTS_BASE = '/openapi/v1/payments';
export const TAGS = ['payments'];

export const TopupView = Type.Object({
  topupId: Type.String(),
  amount: Type.String({ description: 'units (1/10000 USD), as asked' }),
  state: Type.String({ enum: ['open', 'credited', 'failed'], description: 'open until Stripe says it was paid; credited once, by its webhook; failed: Stripe could not be reached to open its page' }),
  checkoutUrl: Type.Union([Type.String(), Type.Null()], { description: 'Stripe\'s payment page: when just started' }),
  receiptUrl: Type.Union([Type.String(), Type.Null()], { description: 'Stripe\'s receipt of the charge, once credited' }),
  createdAt: Type.String({ description: 'Unix seconds' }),
  creditedAt: Type.Union([Type.String(), Type.Null()], { description: 'Unix seconds' }),
});
