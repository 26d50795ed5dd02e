// The reasons stored responses (the Responses API) refuse with: a response of no team of the
// key (RESPONSE_NOT_FOUND), or a request continuing one that is not there (400, as OpenAI:
// INVALID_REQUEST_BODY with OpenAI's code previous_response_not_found).
import { AppError, notFound, type Reason } from '../../lib/errors.ts';

export const RESPONSES_REASONS = ['RESPONSE_NOT_FOUND', 'INVALID_REQUEST_BODY'] as const satisfies readonly Reason[];

/** A stored response of the caller's team that does not exist (or expired); another team's reads the same. */
export const responseNotFound = (id: string): AppError => notFound('response', id, 'RESPONSE_NOT_FOUND');

/** `previous_response_id` names no stored response of the team. */
export function previousNotFound(id: string): AppError {
  return new AppError('INVALID_REQUEST_BODY', `Previous response with id '${id}' not found.`, {
    field: 'previous_response_id', rule: 'stored response', openaiCode: 'previous_response_not_found',
  });
}
