// The reason storage quotas refuse with: STORAGE_QUOTA_EXCEEDED (403, in the model and media
// families; the others tell it as their budget reason). The message names the quota, what is
// used and what the upload needs (quotas.ts words it); metadata says the same in numbers.
import { AppError, type ErrorMetadata, type Reason } from '../../lib/errors.ts';

export const STORAGE_REASONS = ['STORAGE_QUOTA_EXCEEDED'] as const satisfies readonly Reason[];

/** An upload the team's storage quota cannot take. */
export function quotaRefused(message: string, metadata: ErrorMetadata): AppError {
  return new AppError('STORAGE_QUOTA_EXCEEDED', message, metadata);
}
