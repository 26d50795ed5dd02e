// The reasons the serverless data plane answers a call with when its worker does not (the
// serverless family): no answer within the endpoint's requestTimeout (GATEWAY_TIMEOUT), a
// worker that could not be reached (SERVICE_NOT_AVAILABLE). The endpoint's own refusals
// (none serving, the queue full) are the router's (domain/serverless/errors.ts).
import { AppError, type Reason } from '../../lib/errors.ts';

export const PROXY_REASONS = ['GATEWAY_TIMEOUT', 'SERVICE_NOT_AVAILABLE'] as const satisfies readonly Reason[];

export function workerTimedOut(workerId: string, requestTimeoutS: number): AppError {
  return new AppError('GATEWAY_TIMEOUT', `worker ${workerId} did not answer within the endpoint's requestTimeout of ${requestTimeoutS} s`, { workerId });
}

export function workerUnreachable(workerId: string, cause: unknown): AppError {
  return new AppError('SERVICE_NOT_AVAILABLE', `worker ${workerId} could not be reached: ${cause instanceof Error ? cause.message : String(cause)}`, { workerId });
}
