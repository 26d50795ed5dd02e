// The reasons budgets refuse with (the account family), beyond a bad amount or period
// (lib/errors.ts invalid) and a role that may not (../errors.ts roleRefused).
import { AppError, type Reason } from '../../lib/errors.ts';

export const BUDGETS_REASONS = ['NOT_FOUND'] as const satisfies readonly Reason[];

/** The key exists in the team but is not the member's: as far as this member goes, it is not there. */
export function keyNotOfMember(keyId: string, memberId: string): AppError {
  return new AppError('NOT_FOUND', `key ${keyId} not found for member ${memberId}`, { resource: 'key', id: keyId });
}

/** No active key of that id, in any team (the operator's budget of a key). */
export function noSuchKey(keyId: string): AppError {
  return new AppError('NOT_FOUND', `key ${keyId} not found (or revoked)`, { resource: 'key', id: keyId });
}
