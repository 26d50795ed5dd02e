// The reasons API keys are refused with: a key that is not (or no longer) one (UNAUTHORIZED),
// a key of a suspended account (FORBIDDEN), a key asked for a disabled member
// (INVALID_ARGUMENT). Each route family tells them in its own words (INVALID_API_KEY and
// ACCESS_DENY on the model routes).
import { AppError, type Reason } from '../../lib/errors.ts';

export const KEYS_REASONS = ['UNAUTHORIZED', 'FORBIDDEN', 'INVALID_ARGUMENT', 'CONFLICT'] as const satisfies readonly Reason[];

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

/** The team already has this SSH key: within a team a key names one member (ssh-keys.ts). */
export function sshKeyTaken(fingerprint: string): AppError {
  return new AppError('CONFLICT', `an SSH key with fingerprint ${fingerprint} is already registered in this team`, {
    field: 'publicKey', rule: 'a key names one member of a team', fingerprint,
  });
}

/** Another member's SSH keys are listed only to those who manage members. */
export function othersSshKeysRefused(role: string): AppError {
  return new AppError('FORBIDDEN', `role ${role} may only list its own SSH keys`, { role });
}
