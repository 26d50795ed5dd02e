// The reasons webhook operations refuse with (the account family: INVALID_ARGUMENT, NOT_FOUND, CONFLICT).
import { AppError, type Reason } from '../../lib/errors.ts';

export const WEBHOOKS_REASONS = ['NOT_FOUND', 'CONFLICT'] as const satisfies readonly Reason[];

export function endpointNotFound(id: string): AppError {
  return new AppError('NOT_FOUND', `webhook endpoint ${id} not found`, { resource: 'webhook endpoint', id });
}

export function deliveryNotFound(id: string): AppError {
  return new AppError('NOT_FOUND', `webhook delivery ${id} not found`, { resource: 'webhook delivery', id });
}

export function conflict(message: string, metadata: Record<string, string>): AppError {
  return new AppError('CONFLICT', message, metadata);
}
