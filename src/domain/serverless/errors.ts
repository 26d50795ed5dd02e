// The reasons serverless endpoints refuse with: managing them, in the GPU family's words
// (compat.md); calling one (the data plane, routes of the serverless family), as an HTTP
// proxy would: no such endpoint (NOT_FOUND), none of its workers can take the request
// (SERVICE_NOT_AVAILABLE), its queue is full (RATE_LIMIT_EXCEEDED) or no worker took the
// request in time (GATEWAY_TIMEOUT).
import { AppError, type ErrorMetadata, type Reason } from '../../lib/errors.ts';
import { bad } from '../compute/errors.ts';

export const SERVERLESS_REASONS = [
  'SERVERLESS_ENDPOINT_NOT_FOUND', 'RESOURCE_NOT_FOUND', 'SERVERLESS_APP_NAME_IS_EXIST', 'INVALID_STATE',
  'NOT_FOUND', 'SERVICE_NOT_AVAILABLE', 'RATE_LIMIT_EXCEEDED', 'GATEWAY_TIMEOUT',
] as const satisfies readonly Reason[];

/** A field broke a rule (VALIDATOR_PARAM naming the field and the rule). */
export { bad };

/** An endpoint of the caller's team that does not exist; another team's reads the same. */
export function endpointNotFound(id: string): AppError {
  return new AppError('SERVERLESS_ENDPOINT_NOT_FOUND', `endpoint ${id} not found`, { resource: 'endpoint', id });
}

/** A worker (its log) of the caller's team that does not exist; another team's reads the same. */
export function workerNotFound(id: string): AppError {
  return new AppError('RESOURCE_NOT_FOUND', `worker ${id} not found`, { resource: 'worker', id });
}

/** The team already has an endpoint with this appName (the unique index said so). */
export function appNameTaken(field: string, appName: string): AppError {
  return new AppError('SERVERLESS_APP_NAME_IS_EXIST', `${field}: the team already has an endpoint named ${appName}`, {
    field, rule: 'unique per team', appName,
  });
}

/** The endpoint's state does not allow what was asked. */
export function wrongState(message: string, metadata: Record<string, string>): AppError {
  return new AppError('INVALID_STATE', message, metadata);
}

/** The endpoint's GPU product is in the catalogue but not on sale. */
export function productUnavailable(id: string): AppError {
  return new AppError('RESOURCE_NOT_FOUND', `product ${id} is not available`, { resource: 'product', id });
}

// ---- calling an endpoint (the data plane) ----

/** The caller's team has no endpoint of this name (or it is being terminated). */
export function noEndpointNamed(appName: string): AppError {
  return new AppError('NOT_FOUND', `no serverless endpoint named "${appName}" in your team`, { appName });
}

/** The endpoint runs no worker that could take the request (stopped, failed, maxNum 0). */
export function endpointUnavailable(message: string, metadata: ErrorMetadata): AppError {
  return new AppError('SERVICE_NOT_AVAILABLE', message, metadata);
}

/** The endpoint's queue on this replica holds as many requests as it keeps. */
export function queueFull(appName: string, waiting: number): AppError {
  return new AppError('RATE_LIMIT_EXCEEDED', `endpoint ${appName} has ${waiting} requests waiting, the most it keeps: try again later`, { appName, waiting });
}

/** No worker took the request within the endpoint's requestTimeout (seconds). */
export function queueTimedOut(appName: string, requestTimeout: number): AppError {
  return new AppError('GATEWAY_TIMEOUT', `no worker of endpoint ${appName} took the request within its requestTimeout of ${requestTimeout} s`,
    { appName, requestTimeout });
}
