// The reasons the model pipeline refuses with, in the model family's words (compat.md; the
// Anthropic door answers them with Anthropic's error types): a request no model could take
// (INVALID_REQUEST_BODY, in OpenAI's words where they are known), a model that is not there
// (MODEL_NOT_FOUND) or not allowed to the key (ACCESS_DENY), a rate limit
// (RATE_LIMIT_EXCEEDED, TOKEN_LIMIT_EXCEEDED, with Retry-After), an upstream that failed
// (SERVICE_NOT_AVAILABLE), usage that could not be recorded (UNKNOWN). Spend beyond a budget
// or the balance is refused by domain/spend/errors.ts.
import { AppError, type ErrorMetadata, type Reason } from '../lib/errors.ts';

export const GATEWAY_REASONS = [
  'INVALID_REQUEST_BODY', 'MODEL_NOT_FOUND', 'ACCESS_DENY', 'RATE_LIMIT_EXCEEDED', 'TOKEN_LIMIT_EXCEEDED', 'SERVICE_NOT_AVAILABLE', 'UNKNOWN',
] as const satisfies readonly Reason[];

/** The request breaks a rule (metadata: the field, the rule, OpenAI's code where it has one). */
export function badRequest(message: string, metadata: ErrorMetadata, headers?: Record<string, string>): AppError {
  return new AppError('INVALID_REQUEST_BODY', message, metadata, headers);
}

/** No model of this id is available to the key. */
export function modelNotFound(message: string, model: string): AppError {
  return new AppError('MODEL_NOT_FOUND', message, { model });
}

/** The key's policy, its member's or its team's enabled models do not allow the model. */
export function modelDenied(message: string, metadata: ErrorMetadata): AppError {
  return new AppError('ACCESS_DENY', message, metadata);
}

/** The model's requests per minute are used up (headers: Retry-After and the rate headers). */
export function requestRateLimited(message: string, metadata: ErrorMetadata, headers: Record<string, string>): AppError {
  return new AppError('RATE_LIMIT_EXCEEDED', message, metadata, headers);
}

/** The model's tokens per minute cannot take this request's worst case. */
export function tokenRateLimited(message: string, metadata: ErrorMetadata, headers: Record<string, string>): AppError {
  return new AppError('TOKEN_LIMIT_EXCEEDED', message, metadata, headers);
}

/** The upstream failed before answering; nothing was billed. */
export function upstreamUnavailable(model: string, headers: Record<string, string>): AppError {
  return new AppError('SERVICE_NOT_AVAILABLE', `the upstream serving ${model} is not available; the request was not billed`, { model }, headers);
}

/** The answer came but its usage could not be recorded: it is not billed, nor answered. */
export function usageNotRecorded(): AppError {
  return new AppError('UNKNOWN', 'the usage of this request could not be recorded; it was not billed');
}
