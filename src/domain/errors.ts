// The reasons access is refused with, by the modules at the domain root (roles.ts,
// auth-throttle.ts, operator-token.ts) and by every area that checks a role: a role that may
// not do what it asked (FORBIDDEN), too many failed authentications (RATE_LIMIT_EXCEEDED), an
// operator token that is missing or wrong (UNAUTHORIZED), or a store that has none yet
// (NOT_FOUND). Each route family tells them in its own words (lib/error-families.ts).
import { AppError, type ErrorMetadata, type Reason } from '../lib/errors.ts';

export const ACCESS_REASONS = ['FORBIDDEN', 'RATE_LIMIT_EXCEEDED', 'UNAUTHORIZED', 'NOT_FOUND'] as const satisfies readonly Reason[];

/** The caller's role may not do what it asked: metadata names the role first, then what else tells why. */
export function roleRefused(role: string, message: string, extra: ErrorMetadata = {}): AppError {
  return new AppError('FORBIDDEN', message, { role, ...extra });
}

/** Too many failed authentications from an address or with a key prefix; retry after `retryAfterS`. */
export function authThrottled(scope: 'address' | 'prefix', retryAfterS: number): AppError {
  const what = scope === 'address' ? 'from this address' : 'with this key prefix';
  return new AppError('RATE_LIMIT_EXCEEDED', `too many failed authentication attempts ${what}; retry after ${retryAfterS} s`,
    { rule: 'auth_failures', scope, retryAfter: retryAfterS }, { 'retry-after': String(retryAfterS) });
}

/** The operator token presented (or the one a console session was opened with) is not the store's. */
export function operatorTokenRefused(message: string): AppError {
  return new AppError('UNAUTHORIZED', message);
}

/** The store has no operator token yet. */
export function operatorTokenMissing(): AppError {
  return new AppError('NOT_FOUND', 'the store has no operator token yet: the first start of Gantry creates it',
    { field: 'operatorToken', rule: 'bootstrapped' });
}
