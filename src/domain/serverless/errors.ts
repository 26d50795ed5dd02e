// The reasons serverless endpoints refuse with, in the GPU family's words (compat.md).
import { AppError } from '../../lib/errors.ts';
import { bad } from '../compute/errors.ts';

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
