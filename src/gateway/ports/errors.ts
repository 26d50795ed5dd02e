// The reasons an instance's port is refused with through Gantry (gateway/ports), told in the
// family of a tenant's HTTP server behind Gantry (`serverless`: an HTTP client's statuses):
// a pass that is not one (UNAUTHORIZED → 401), a role that may not operate instances
// (FORBIDDEN → 403), an instance or port that is not the caller's team's or not an HTTP port
// (NOT_FOUND → 404, as if it did not exist), an instance that does not run or a port that does
// not answer (SERVICE_NOT_AVAILABLE → 503).
import { AppError, type ErrorMetadata, type Reason } from '../../lib/errors.ts';

export const PORTS_REASONS = ['UNAUTHORIZED', 'FORBIDDEN', 'NOT_FOUND', 'SERVICE_NOT_AVAILABLE'] as const satisfies readonly Reason[];

/** A ticket or port cookie that is forged, of another port, expired or used. */
export function passRefused(field: 'ticket' | 'cookie', message: string): AppError {
  return new AppError('UNAUTHORIZED', message, { field: field === 'ticket' ? 'gantry_ticket' : 'gantry_port', rule: 'a pass of this port given by GET /gpu/instance, in time' });
}

/** No credential at all. */
export function noCredential(): AppError {
  return new AppError('UNAUTHORIZED', 'sign in: send "Authorization: Bearer <API key>", or open the port from the console (a link with a ticket)',
    { field: 'authorization', rule: 'an API key of the team, or the port cookie of a console link' });
}

export function portForbidden(role: string): AppError {
  return new AppError('FORBIDDEN', `role ${role} may not reach an instance's ports`, { role, rule: 'roles that may start and stop instances' });
}

/** Not the team's instance, or not one of its HTTP ports: answered as if it did not exist. */
export function portNotFound(instanceId: string, port: number, why: string): AppError {
  return new AppError('NOT_FOUND', `instance ${instanceId} has no HTTP port ${port}${why ? `: ${why}` : ''}`, { field: 'port', instanceId, port, rule: 'an http port of an instance of your team' });
}

export function portDown(message: string, metadata: ErrorMetadata): AppError {
  return new AppError('SERVICE_NOT_AVAILABLE', message, metadata);
}
