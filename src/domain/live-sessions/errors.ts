// The reasons live sessions refuse or end with (domain/live-sessions): too many open at once
// (RATE_LIMIT_EXCEEDED, 429: the GPU family has it), and a session whose caller could not be
// checked again (SERVICE_NOT_AVAILABLE: the store did not answer; the session ends all the same).
import { AppError, type Reason } from '../../lib/errors.ts';

export const LIVE_SESSION_REASONS = ['RATE_LIMIT_EXCEEDED', 'SERVICE_NOT_AVAILABLE'] as const satisfies readonly Reason[];

/** How long a caller refused for too many sessions is told to wait (a session ends when its user closes it). */
const RETRY_AFTER_S = 5;

/** One more session would pass a limit: `rule` names it, `message` says it in words. */
export function tooManySessions(rule: string, limit: number, message: string): AppError {
  return new AppError('RATE_LIMIT_EXCEEDED', message, { rule, limit, retryAfter: RETRY_AFTER_S }, { 'retry-after': String(RETRY_AFTER_S) });
}

/** The caller of a live session could not be checked again after a change (fail closed: the session ends). */
export function callerUnchecked(): AppError {
  return new AppError('SERVICE_NOT_AVAILABLE', 'the session\'s access could not be checked again after a change; open it again');
}
