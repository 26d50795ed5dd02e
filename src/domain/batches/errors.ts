// The reasons batches refuse with (the model family's words, compat.md): a bad request
// (INVALID_REQUEST_BODY), a batch of no team of the key (BATCH_NOT_FOUND); and the answer a
// line gets when the key that created its batch could no longer call (INVALID_API_KEY,
// ACCESS_DENY: what the key itself would be told).
import { AppError, invalid, type Reason } from '../../lib/errors.ts';

export const BATCHES_REASONS = ['INVALID_REQUEST_BODY', 'BATCH_NOT_FOUND', 'INVALID_API_KEY', 'ACCESS_DENY'] as const satisfies readonly Reason[];

/** A field of the request broke a rule. */
export const bad = (field: string, rule: string): AppError => invalid(field, rule, 'INVALID_REQUEST_BODY');

/** A batch of the caller's team that does not exist; another team's reads the same. */
export function batchNotFound(id: string): AppError {
  return new AppError('BATCH_NOT_FOUND', `batch ${id} not found`, { batch_id: id });
}

/** The key that created the batch is revoked, or its member disabled. */
export function creatorKeyRevoked(): AppError {
  return new AppError('INVALID_API_KEY', 'the API key that created this batch is invalid or has been revoked');
}

/** The team that created the batch is suspended. */
export function creatorSuspended(): AppError {
  return new AppError('ACCESS_DENY', 'the account is suspended');
}
