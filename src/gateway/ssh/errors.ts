// The reasons the SSH endpoint refuses with (gateway/ssh). An SSH client sees none of them as
// such: an authentication refused is "Permission denied (publickey)" whatever the reason (an
// unknown instance and another team's answer alike), and a session refused after it is a
// line on stderr and exit status 1. They name what happened in Gantry's log, and UNAUTHORIZED
// is what the auth throttle counts (domain/auth-throttle.ts).
import { AppError, type Reason } from '../../lib/errors.ts';

export const SSH_REASONS = ['UNAUTHORIZED', 'FORBIDDEN', 'INVALID_STATE'] as const satisfies readonly Reason[];

/** No instance by that name (or one of another team, which is the same to the client), or a signature that does not verify. */
export function sshRefused(message: string): AppError {
  return new AppError('UNAUTHORIZED', message, { rule: 'a registered SSH key of a member of the instance\'s team' });
}

/** The key's member may not operate instances (Basic, Billing). */
export function sshForbidden(role: string): AppError {
  return new AppError('FORBIDDEN', `role ${role} may not reach an instance over SSH`, { role, rule: 'roles that may start and stop instances' });
}

/** The instance does not run, or the driver cannot reach it: said on the session's stderr. */
export function sshUnavailable(message: string): AppError {
  return new AppError('INVALID_STATE', message, { rule: 'a running instance of a driver with SSH (docker)' });
}
