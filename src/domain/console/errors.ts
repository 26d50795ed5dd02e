// The reasons console sessions refuse with: no live session, or one that cannot act so
// (UNAUTHORIZED), a sign-in with not exactly one credential (INVALID_ARGUMENT), a change
// without the session's CSRF token (FORBIDDEN).
import { AppError, type Reason } from '../../lib/errors.ts';

export const CONSOLE_REASONS = ['UNAUTHORIZED', 'INVALID_ARGUMENT', 'FORBIDDEN'] as const satisfies readonly Reason[];

/** The cookie names no live session, or one of the other kind (a key's, the operator's). */
export function sessionRefused(message = 'no console session: sign in again'): AppError {
  return new AppError('UNAUTHORIZED', message);
}

/** A sign-in sends exactly one of an API key, the operator token, or an e-mail address with its password. */
export function oneCredential(): AppError {
  return new AppError('INVALID_ARGUMENT', 'send exactly one of apiKey, operatorToken, or email with password', { field: 'apiKey', rule: 'one of apiKey, operatorToken, email+password' });
}

/** A change made through a session without its CSRF token in `header`. */
export function csrfRefused(header: string): AppError {
  return new AppError('FORBIDDEN', `missing or wrong ${header} header: a change made with a console session carries its CSRF token`, { field: header, rule: 'csrf' });
}
