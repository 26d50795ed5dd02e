// The reasons payment operations refuse with (the account family): NOT_FOUND while card
// top-ups are not configured (the feature is off, so its routes are as absent as unknown
// ones), INVALID_ARGUMENT for an amount outside the operator's range or a webhook whose
// signature does not hold, SERVICE_NOT_AVAILABLE while Stripe cannot be reached.
import { AppError, type Reason } from '../../lib/errors.ts';
import { unitsToUsdText } from '../../lib/money.ts';

export const PAYMENTS_REASONS = ['NOT_FOUND', 'INVALID_ARGUMENT', 'SERVICE_NOT_AVAILABLE'] as const satisfies readonly Reason[];

export function paymentsOff(): AppError {
  return new AppError('NOT_FOUND', 'card top-ups are not offered on this server (the operator has not configured Stripe)', { resource: 'card top-ups' });
}

export function amountOutOfRange(units: bigint, minUnits: bigint, maxUnits: bigint): AppError {
  return new AppError('INVALID_ARGUMENT', `a top-up is ${unitsToUsdText(minUnits)} to ${unitsToUsdText(maxUnits)} (${minUnits}-${maxUnits} units); got ${unitsToUsdText(units)}`,
    { field: 'amount', rule: `${minUnits}-${maxUnits} units`, min: minUnits.toString(), max: maxUnits.toString() });
}

export function amountNotCents(units: bigint): AppError {
  return new AppError('INVALID_ARGUMENT', `a card is charged in whole cents: ${units} units (${unitsToUsdText(units)}) is not; use a multiple of 100 units`,
    { field: 'amount', rule: 'a multiple of 100 units (whole cents)' });
}

export function badSignature(why: string): AppError {
  return new AppError('INVALID_ARGUMENT', `the webhook's Stripe-Signature does not hold: ${why}`, { field: 'stripe-signature', rule: 'signed by the endpoint secret, within 5 minutes' });
}

export function stripeUnavailable(why: string): AppError {
  return new AppError('SERVICE_NOT_AVAILABLE', `Stripe could not be reached; nothing was charged or credited, try again: ${why}`, { dependency: 'stripe' });
}
