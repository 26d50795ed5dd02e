// The reasons webhook operations refuse with (the account family: INVALID_ARGUMENT, NOT_FOUND,
// CONFLICT, and RATE_LIMIT_EXCEEDED for sends asked too often: throttle.ts).
import { AppError, type Reason } from '../../lib/errors.ts';

export const WEBHOOKS_REASONS = ['NOT_FOUND', 'CONFLICT', 'RATE_LIMIT_EXCEEDED'] as const satisfies readonly Reason[];

export function endpointNotFound(id: string): AppError {
  return new AppError('NOT_FOUND', `webhook endpoint ${id} not found`, { resource: 'webhook endpoint', id });
}

export function deliveryNotFound(id: string): AppError {
  return new AppError('NOT_FOUND', `webhook delivery ${id} not found`, { resource: 'webhook delivery', id });
}

export function conflict(message: string, metadata: Record<string, string>): AppError {
  return new AppError('CONFLICT', message, metadata);
}

/** More sends asked (test sends, manual retries) than a limit allows in its minute. */
export function sendsThrottled(scope: 'endpoint' | 'team', limit: number, retryAfterS: number): AppError {
  const whose = scope === 'endpoint' ? 'to one endpoint' : 'by one team, all its endpoints together';
  return new AppError('RATE_LIMIT_EXCEEDED', `at most ${limit} sends a minute ${whose} (test sends and manual retries); retry after ${retryAfterS} s`,
    { rule: `webhook_sends_per_${scope}`, limit, windowS: 60, retryAfter: retryAfterS }, { 'retry-after': String(retryAfterS) });
}
