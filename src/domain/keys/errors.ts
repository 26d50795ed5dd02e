// The reasons API keys are refused with: a key that is not (or no longer) one (UNAUTHORIZED),
// a key of a suspended account (FORBIDDEN), a key asked for a disabled member
// (INVALID_ARGUMENT). Each route family tells them in its own words (INVALID_API_KEY and
// ACCESS_DENY on the model routes).
import { AppError, type Reason } from '../../lib/errors.ts';

export const KEYS_REASONS = ['UNAUTHORIZED', 'FORBIDDEN', 'INVALID_ARGUMENT'] as const satisfies readonly Reason[];

/** No key, a malformed one, or one that is revoked, of a disabled member or unknown. */
export function keyRefused(message: string): AppError {
  return new AppError('UNAUTHORIZED', message);
}

/** The key's team is suspended. */
export function accountSuspended(teamId: string): AppError {
  return new AppError('FORBIDDEN', 'the account is suspended', { userId: teamId });
}

/** A key cannot be created for a disabled member. */
export function memberDisabled(memberId: string): AppError {
  return new AppError('INVALID_ARGUMENT', `member ${memberId} is disabled`, { memberId });
}
