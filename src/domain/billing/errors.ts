// The reasons billing refuses with (the billing family of compat.md): a bill query's only
// inputs are its period and its product filter.
import { AppError, type ErrorMetadata, type Reason } from '../../lib/errors.ts';

export const BILLING_REASONS = ['INVALID_BILL_CYCLE', 'INVALID_PRODUCT_CATEGORY'] as const satisfies readonly Reason[];

/** The period asked for is wrong: a cycle, a time, a range, a month, a page. */
export function badPeriod(field: string, rule: string, message = `${field}: ${rule}`, extra: ErrorMetadata = {}): AppError {
  return new AppError('INVALID_BILL_CYCLE', message, { field, rule, ...extra });
}

/** The product filter is wrong. */
export function badProduct(field: string, rule: string, message = `${field}: ${rule}`): AppError {
  return new AppError('INVALID_PRODUCT_CATEGORY', message, { field, rule });
}
