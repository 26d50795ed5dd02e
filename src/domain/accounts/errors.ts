// The reasons teams and members refuse with (the account family), beyond a bad field
// (lib/errors.ts invalid), one not found (lib/errors.ts notFound) and a role that may not
// (../errors.ts roleRefused).
import { AppError, type Reason } from '../../lib/errors.ts';

export const ACCOUNTS_REASONS = ['CONFLICT'] as const satisfies readonly Reason[];

/** The team already has a member with this e-mail. */
export function emailTaken(email: string): AppError {
  return new AppError('CONFLICT', `a member with e-mail ${email} already exists in this team`, { field: 'email' });
}

/** The change would leave the team without an active Owner. */
export function lastOwner(memberId: string): AppError {
  return new AppError('CONFLICT', 'a team keeps at least one active Owner: make another member Owner first', { memberId });
}
