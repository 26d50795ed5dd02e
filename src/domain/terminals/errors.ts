// The reasons a web terminal is refused with (domain/terminals): a ticket that is not one,
// expired or used (UNAUTHORIZED), a caller whose role may not operate instances now
// (FORBIDDEN), an instance that does not run or a driver without terminals (INVALID_STATE).
// The GPU family tells them in its own words (lib/error-families.ts).
import { AppError, type ErrorMetadata, type Reason } from '../../lib/errors.ts';

export const TERMINAL_REASONS = ['UNAUTHORIZED', 'FORBIDDEN', 'INVALID_STATE'] as const satisfies readonly Reason[];

/** The ticket is missing, forged, expired or used already. */
export function ticketRefused(message: string): AppError {
  return new AppError('UNAUTHORIZED', message, { field: 'ticket', rule: 'a terminal ticket of GET /gpu/instance, unused, within its minutes' });
}

/** The caller's role may not operate instances (any more). */
export function terminalForbidden(role: string): AppError {
  return new AppError('FORBIDDEN', `role ${role} may not open an instance's terminal`, { role, rule: 'roles that may start and stop instances' });
}

/** The instance cannot have a terminal now. */
export function terminalUnavailable(message: string, metadata: ErrorMetadata): AppError {
  return new AppError('INVALID_STATE', message, metadata);
}
