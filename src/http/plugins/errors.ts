// One handler renders every failure as {code, reason, message, metadata}; a 5xx never leaks internals.
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, errorBody, type Reason } from '../../lib/errors.ts';
import type { App } from '../types.ts';

/** Which reason family a path belongs to (spec/compat.md). */
export function familyOf(url: string): 'llm' | 'gpu' | 'media' | 'default' {
  if (url.startsWith('/openai/') || url.startsWith('/v3/openai/')) return 'llm';
  if (url.startsWith('/gpu-instance/')) return 'gpu';
  if (url.startsWith('/v3/')) return 'media';
  return 'default';
}

const FAMILY_REASON: Record<ReturnType<typeof familyOf>, { invalid: Reason; unauthorized: Reason; notFound: Reason }> = {
  llm: { invalid: 'INVALID_REQUEST_BODY', unauthorized: 'INVALID_API_KEY', notFound: 'MODEL_NOT_FOUND' },
  gpu: { invalid: 'VALIDATOR_PARAM', unauthorized: 'UNAUTHORIZED', notFound: 'RESOURCE_NOT_FOUND' },
  media: { invalid: 'INVALID_REQUEST_BODY', unauthorized: 'INVALID_API_KEY', notFound: 'NOT_FOUND' },
  default: { invalid: 'INVALID_ARGUMENT', unauthorized: 'UNAUTHORIZED', notFound: 'NOT_FOUND' },
};

/** Map an error to the family of the route it happened on (e.g. 401 is INVALID_API_KEY under /openai). */
export function adaptToFamily(e: AppError, url: string): AppError {
  const fam = FAMILY_REASON[familyOf(url)];
  if (e.reason === 'UNAUTHORIZED' && fam.unauthorized !== 'UNAUTHORIZED') return new AppError(fam.unauthorized, e.message, e.metadata, e.headers);
  if (e.reason === 'INVALID_ARGUMENT' && fam.invalid !== 'INVALID_ARGUMENT') return new AppError(fam.invalid, e.message, e.metadata, e.headers);
  return e;
}

interface AjvError {
  instancePath?: string;
  keyword?: string;
  message?: string;
  params?: Record<string, unknown>;
}

function describeValidation(err: FastifyError): { field: string; rule: string } {
  const first = (err.validation?.[0] ?? {}) as AjvError;
  const ctx = err.validationContext ?? 'body';
  let path = (first.instancePath ?? '').replace(/^\//, '').replace(/\//g, '.');
  if (first.keyword === 'required' && first.params?.missingProperty) {
    path = path ? `${path}.${String(first.params.missingProperty)}` : String(first.params.missingProperty);
  }
  const field = path || ctx;
  let rule = first.message ?? 'is invalid';
  if (first.keyword === 'required') rule = 'is required';
  if (first.keyword === 'enum' && Array.isArray(first.params?.allowedValues)) rule = `must be one of ${first.params.allowedValues.join(', ')}`;
  if (first.keyword === 'additionalProperties' && first.params?.additionalProperty) rule = `unknown field ${String(first.params.additionalProperty)}`;
  // int64 inputs take a JSON number or a string of digits (a type list); AJV would say "must be integer,string"
  if (first.keyword === 'type' && String(first.params?.type) === 'integer,string') rule = 'must be an integer';
  return { field, rule };
}

export function toAppError(err: unknown, url: string): AppError {
  if (err instanceof AppError) return adaptToFamily(err, url);
  const fe = err as FastifyError;
  const fam = FAMILY_REASON[familyOf(url)];
  if (fe.validation) {
    const { field, rule } = describeValidation(fe);
    return new AppError(fam.invalid, `${field}: ${rule}`, { field, rule });
  }
  if (fe.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return new AppError('PAYLOAD_TOO_LARGE', 'request body too large');
  if (typeof fe.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500) {
    // Body parse errors, bad content types and the like: the client's fault, said plainly.
    return new AppError(fam.invalid, fe.message, { field: 'body', rule: fe.code ?? 'invalid' });
  }
  return new AppError('UNKNOWN', 'internal error; the request id identifies it in the server log');
}

export function sendError(reply: FastifyReply, req: FastifyRequest, e: AppError): FastifyReply {
  const body: Record<string, unknown> = { ...errorBody(e) };
  if (familyOf(req.url) === 'llm') {
    // OpenAI SDKs read `error`; the flat fields stay for clients of the real service.
    body.error = {
      message: e.message,
      type: e.status === 429 ? 'rate_limit_error' : e.status >= 500 ? 'server_error' : 'invalid_request_error',
      param: typeof e.metadata.field === 'string' ? e.metadata.field : null,
      code: e.reason.toLowerCase(),
    };
  }
  if (e.headers) reply.headers(e.headers);
  return reply.code(e.status).header('content-type', 'application/json; charset=utf-8').send(JSON.stringify(body));
}

export function registerErrorHandling(app: App): void {
  app.setErrorHandler((err, req, reply) => {
    const e = toAppError(err, req.url);
    if (e.status >= 500) req.log.error({ err }, 'request failed');
    return sendError(reply, req, e);
  });
  app.setNotFoundHandler((req, reply) => {
    const fam = familyOf(req.url);
    const reason: Reason = fam === 'media' ? 'API_NOT_FOUND' : fam === 'gpu' ? 'RESOURCE_NOT_FOUND' : 'NOT_FOUND';
    return sendError(reply, req, new AppError(reason, `no route ${req.method} ${req.url.split('?')[0]}`, { method: req.method }));
  });
}
