// The reasons billing refuses with: the billing family's (compat.md) for bill queries, whose
// only inputs are their period and their product filter; CONFLICT for a posting to the
// ledger whose idempotency key was used for another.
import { AppError, type ErrorMetadata, type Reason } from '../../lib/errors.ts';

export const BILLING_REASONS = ['INVALID_BILL_CYCLE', 'INVALID_PRODUCT_CATEGORY', 'CONFLICT'] as const satisfies readonly Reason[];

/** The period asked for is wrong: a cycle, a time, a range, a month, a page. */
export function badPeriod(field: string, rule: string, message = `${field}: ${rule}`, extra: ErrorMetadata = {}): AppError {
  return new AppError('INVALID_BILL_CYCLE', message, { field, rule, ...extra });
}

/** The product filter is wrong. */
export function badProduct(field: string, rule: string, message = `${field}: ${rule}`): AppError {
  return new AppError('INVALID_PRODUCT_CATEGORY', message, { field, rule });
}

/** A posting's idempotency key was already used for a posting of another kind or amount. */
export function idempotencyKeyReused(key: string): AppError {
  return new AppError('CONFLICT', `idempotency key ${key} was already used for a different posting`, { field: 'idempotencyKey' });
}
