// One handler renders every failure as {code, reason, message, metadata}, in the reason
// family of the route (families.ts). A 5xx never leaks internals; no answer echoes the
// request's path or body back (a client's own bytes are never reflected).
import type { Socket } from 'node:net';
import type { ConnectionError, FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, errorBody } from '../../lib/errors.ts';
import { DependencyDown, dependencyRefusal, isDatabaseUnreachable } from '../../lib/dependencies.ts';
import type { DependencyHealth } from '../../store/health.ts';
import { newId } from '../../lib/ids.ts';
import { nodeHttp } from '../../lib/node-http.ts';
import { familyOfPath, reasonInFamily, type Family } from '../families.ts';
import type { App } from '../types.ts';

const { STATUS_CODES } = nodeHttp; // not an import of node:http (lib/node-http.ts says why)

/** The family of the route that answers (declared in its config), or of the path when no route matched. */
export function familyOf(req: FastifyRequest): Family {
  return req.routeOptions?.config?.family ?? familyOfPath(req.url);
}

interface AjvError {
  instancePath?: string;
  keyword?: string;
  message?: string;
  params?: Record<string, unknown>;
  /** the schema of the failing value (AJV's `verbose`) */
  parentSchema?: Record<string, unknown>;
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
  const types = [first.parentSchema?.type].flat();
  const int64 = types.includes('integer') && types.includes('string');
  // int64 inputs take a JSON number or a string of digits (a type list); AJV would say "must be integer,string"
  if (first.keyword === 'type' && int64) rule = 'must be an integer';
  if (first.keyword === 'format' && first.params?.format === 'int64') rule = 'must be a 64-bit integer (-9223372036854775808 to 9223372036854775807)';
  if (['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum'].includes(first.keyword ?? '') && first.parentSchema) {
    rule = rangeRule(first.parentSchema, int64) ?? rule;
  }
  return { field, rule };
}

/** A number's whole range, as the domain words it ("must be an integer in 1-8"). */
function rangeRule(s: Record<string, unknown>, int64: boolean): string | undefined {
  const min = typeof s.minimum === 'number' ? s.minimum : undefined;
  const above = typeof s.exclusiveMinimum === 'number' ? s.exclusiveMinimum : undefined;
  const max = typeof s.maximum === 'number' ? s.maximum : undefined;
  if (min === undefined && above === undefined && max === undefined) return undefined;
  const what = [s.type].flat().includes('integer') ? 'an integer' : 'a number';
  const range = above !== undefined ? `greater than ${above}${max !== undefined ? ` and at most ${max}` : ''}`
    : min !== undefined && max !== undefined ? `in ${min}-${max}` : min !== undefined ? `at least ${min}` : `at most ${max}`;
  // beyond 2^53 a JSON number is no longer exact: such int64 values travel as strings
  const larger = int64 && max === Number.MAX_SAFE_INTEGER ? ' as a JSON number; send larger integers as strings of digits' : '';
  return `must be ${what} ${range}${larger}`;
}

/** Fastify's own refusals, each told in a fixed sentence (its messages may quote the request). */
const FASTIFY_ERRORS: Record<string, { reason: 'PAYLOAD_TOO_LARGE' | 'UNSUPPORTED_MEDIA_TYPE' | 'INVALID_ARGUMENT' | 'URI_TOO_LONG'; message: string; field?: string }> = {
  FST_ERR_CTP_BODY_TOO_LARGE: { reason: 'PAYLOAD_TOO_LARGE', message: 'the request body is larger than this route accepts' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { reason: 'UNSUPPORTED_MEDIA_TYPE', message: 'unsupported Content-Type: send application/json' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { reason: 'INVALID_ARGUMENT', message: 'Content-Length does not match the body', field: 'body' },
  FST_ERR_CTP_INVALID_TYPE: { reason: 'UNSUPPORTED_MEDIA_TYPE', message: 'the Content-Type header is invalid' },
  FST_ERR_CTP_EMPTY_TYPE: { reason: 'UNSUPPORTED_MEDIA_TYPE', message: 'the Content-Type header is empty' },
  FST_ERR_CTP_INVALID_JSON_BODY: { reason: 'INVALID_ARGUMENT', message: 'the body is not valid JSON', field: 'body' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { reason: 'INVALID_ARGUMENT', message: 'the body is empty', field: 'body' },
  FST_ERR_BAD_URL: { reason: 'INVALID_ARGUMENT', message: 'the request path is not valid percent-encoding', field: 'path' },
  FST_ERR_ASYNC_CONSTRAINT: { reason: 'INVALID_ARGUMENT', message: 'the request does not match a route constraint', field: 'path' },
  FST_ERR_MAX_PARAM_LENGTH: { reason: 'URI_TOO_LONG', message: 'a path parameter is longer than any identifier' },
};

/** Any thrown value as the route family's error. */
export function toAppError(err: unknown, family: Family): AppError {
  const e = normalize(err);
  return e.as(reasonInFamily(family, e.reason, typeof e.metadata.field === 'string' ? e.metadata.field : undefined));
}

function normalize(err: unknown): AppError {
  if (err instanceof AppError) return err;
  if (err instanceof DependencyDown) return dependencyRefusal(err.dependency);
  if (isDatabaseUnreachable(err)) return dependencyRefusal('database');
  const fe = err as FastifyError;
  if (fe?.validation) {
    const { field, rule } = describeValidation(fe);
    return new AppError('INVALID_ARGUMENT', `${field}: ${rule}`, { field, rule });
  }
  const known = fe?.code ? FASTIFY_ERRORS[fe.code] : undefined;
  if (known) return new AppError(known.reason, known.message, known.field ? { field: known.field, rule: fe.code } : {});
  if (fe?.code === 'FST_ERR_CTP_INVALID_CHARSET' || /charset/i.test(String(fe?.message ?? '')) && fe?.statusCode === 415) {
    return new AppError('UNSUPPORTED_MEDIA_TYPE', 'unsupported charset: send UTF-8', {});
  }
  if (sqlStateOf(err) === UNIQUE_VIOLATION) {
    // Two requests raced past the domain's "does it exist?" check and the store kept one:
    // the other is what it would have been a moment later, a conflict (the message says no SQL).
    return new AppError('CONFLICT', 'a request made at the same time created the same thing first; read it back, or retry', { rule: 'unique' });
  }
  if (typeof fe?.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500) {
    // Any other refusal of the request by Fastify: the client's to fix, said without quoting it.
    if (fe.statusCode === 413) return new AppError('PAYLOAD_TOO_LARGE', 'the request body is larger than this route accepts');
    if (fe.statusCode === 414) return new AppError('URI_TOO_LONG', 'the request URI is too long');
    if (fe.statusCode === 415) return new AppError('UNSUPPORTED_MEDIA_TYPE', 'unsupported Content-Type');
    return new AppError('INVALID_ARGUMENT', 'the request is malformed', { field: 'request', rule: fe.code ?? 'invalid' });
  }
  return new AppError('UNKNOWN', 'internal error; the request id identifies it in the server log');
}

const UNIQUE_VIOLATION = '23505';

/** The SQLSTATE of a PostgreSQL error, as thrown by pg or PGlite, or wrapped by Drizzle (`cause`). */
function sqlStateOf(err: unknown): string | undefined {
  for (let e = err, depth = 0; e && typeof e === 'object' && depth < 3; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return code;
  }
  return undefined;
}

/**
 * What an error answer may echo: a message quotes what it is about (a model name, an id)
 * and metadata repeats it, and the OpenAI `error` member says the message again, so a
 * 14,000-character path once came back three times (42 KB). The message keeps its head and
 * its end (the rule is usually said last), a metadata string its head.
 */
const MAX_ERROR_MESSAGE_CHARS = 600;
const MAX_ERROR_VALUE_CHARS = 200;

/** `s` within `max` characters: head, an ellipsis, and the last `tail` characters (no surrogate pair cut). */
function clip(s: string, max: number, tail: number): string {
  if (s.length <= max) return s;
  let head = s.slice(0, max - tail - 1);
  if (/[\uD800-\uDBFF]$/.test(head)) head = head.slice(0, -1);
  let end = tail > 0 ? s.slice(s.length - tail) : '';
  if (/^[\uDC00-\uDFFF]/.test(end)) end = end.slice(1);
  return `${head}…${end}`;
}

/** The error as it may be shown: message and metadata strings within their bounds. */
function bounded(e: AppError): AppError {
  const long = e.message.length > MAX_ERROR_MESSAGE_CHARS || Object.values(e.metadata).some((v) => typeof v === 'string' && v.length > MAX_ERROR_VALUE_CHARS);
  if (!long) return e;
  const metadata = Object.fromEntries(Object.entries(e.metadata).map(([k, v]) => [k, typeof v === 'string' ? clip(v, MAX_ERROR_VALUE_CHARS, 0) : v]));
  return new AppError(e.reason, clip(e.message, MAX_ERROR_MESSAGE_CHARS, 200), metadata, e.headers);
}

/** The body of an error answer: the unified shape, plus OpenAI's `error` member on model routes. */
export function errorPayload(err: AppError, family: Family): Record<string, unknown> {
  const e = bounded(err);
  const body: Record<string, unknown> = { ...errorBody(e) };
  if (family === 'llm') {
    // OpenAI SDKs read `error`; the flat fields stay for clients of the real service.
    body.error = {
      message: e.message,
      type: e.status === 429 ? 'rate_limit_error' : e.status >= 500 ? 'server_error' : 'invalid_request_error',
      param: typeof e.metadata.field === 'string' ? e.metadata.field : null,
      code: typeof e.metadata.openaiCode === 'string' ? e.metadata.openaiCode : e.reason.toLowerCase(),
    };
  }
  if (family === 'anthropic') {
    // Anthropic's SDKs read `type: "error"` and `error.type`; the flat fields stay, as on /openai.
    body.type = 'error';
    body.error = { type: anthropicErrorType(e), message: e.message };
  }
  return body;
}

/**
 * Anthropic's error type for an answer. Statuses stay those of the one table (a refused
 * balance or budget is 403, as on /openai); the type names the cause: `billing_error` for
 * money, `overloaded_error` for an upstream or dependency that is not available (503:
 * retry later, like Anthropic's 529).
 */
export function anthropicErrorType(e: AppError): string {
  if (e.reason === 'NOT_ENOUGH_BALANCE' || e.reason === 'BUDGET_EXCEEDED') return 'billing_error';
  switch (e.status) {
    case 401: return 'authentication_error';
    case 403: return 'permission_error';
    case 404: return 'not_found_error';
    case 413: return 'request_too_large';
    case 429: return 'rate_limit_error';
    case 503: return 'overloaded_error';
    case 504: return 'timeout_error';
    default: return e.status >= 500 ? 'api_error' : 'invalid_request_error';
  }
}

export function sendError(reply: FastifyReply, req: FastifyRequest, err: unknown, family: Family = familyOf(req)): FastifyReply {
  const e = toAppError(err, family);
  if (e.headers) reply.headers(e.headers);
  // set here too: a refusal before routing (a bad %-escape) runs no onRequest hook
  reply.header('x-request-id', req.id);
  return reply.code(e.status).header('content-type', 'application/json; charset=utf-8').send(JSON.stringify(errorPayload(e, family)));
}

/**
 * Fastify's `frameworkErrors`: refusals before any route is chosen (a path that is not valid
 * percent-encoding, a parameter longer than the router takes). Fastify's own answer quotes
 * the path and skips the error handler; this one is the unified body, in the path's family.
 */
export function frameworkErrors(err: FastifyError, req: FastifyRequest, reply: FastifyReply): void {
  sendError(reply, req, err, familyOfPath(req.raw.url ?? '/'));
}

/** How long a refused connection may take to read its answer before the socket is destroyed. */
const CLIENT_ERROR_LINGER_MS = 5_000;

/**
 * Fastify's `clientErrorHandler` (the server's 'clientError'): what Node's HTTP parser refuses
 * before a request exists — headers beyond the size limit (431; 414 when the request line
 * alone is that long), a timeout (408), bytes that are no HTTP (400). Answered in the unified
 * body with a request id and `Connection: close`, then the socket is ended: a keep-alive
 * client knows not to send another request on it (Fastify's default answer says nothing,
 * quotes no family and destroys the socket, so the client's next request failed).
 */
export function clientErrorHandler(this: FastifyInstance | undefined, err: ConnectionError, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  // what the parser had read: enough to tell the path (so the family) and a long request line
  const raw: unknown = err.rawPacket;
  const head = Buffer.isBuffer(raw) ? raw.subarray(0, 4096).toString('latin1') : '';
  const requestLine = /^[A-Z]+ (\/\S*)/.exec(head);
  const family = familyOfPath(requestLine?.[1] ?? '/');
  const e = err.code === 'HPE_HEADER_OVERFLOW'
    ? (head.includes('\r\n') ? new AppError('HEADERS_TOO_LARGE', 'the request headers are larger than the server accepts')
      : new AppError('URI_TOO_LONG', 'the request URI is too long'))
    : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? new AppError('REQUEST_TIMEOUT', 'the request was not received in time')
    : new AppError('INVALID_ARGUMENT', 'the request is not valid HTTP', { field: 'request', rule: err.code ?? 'invalid' });
  this?.log.debug({ code: err.code }, 'client error');
  // a response already on its way (a pipelined request before this one) must not be cut into
  const answering = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true;
  if (!socket.writable || answering) {
    socket.destroy();
    return;
  }
  const told = toAppError(e, family);
  const body = JSON.stringify(errorPayload(told, family));
  socket.end(`HTTP/1.1 ${told.status} ${STATUS_CODES[told.status] ?? ''}\r\nContent-Type: application/json; charset=utf-8\r\n`
    + `Content-Length: ${Buffer.byteLength(body)}\r\nx-request-id: ${newId('request')}\r\nConnection: close\r\n\r\n${body}`);
  // end() lets the client read the answer (a destroy could reset it unread); a client that never closes is cut off
  setTimeout(() => socket.destroy(), CLIENT_ERROR_LINGER_MS).unref();
}

export function registerErrorHandling(app: App, health?: DependencyHealth): void {
  app.setErrorHandler((err, req, reply) => {
    // A connection failure tells the replica's health, so the next requests are refused at once.
    if (health && !(err instanceof AppError) && isDatabaseUnreachable(err)) health.down('database', err);
    const e = toAppError(err, familyOf(req));
    if (e.status >= 500 && e.reason !== 'SERVICE_NOT_AVAILABLE') req.log.error({ err }, 'request failed');
    return sendError(reply, req, e);
  });
  app.setNotFoundHandler((req, reply) => {
    // No route: the message names the method only; the path is the client's own text.
    return sendError(reply, req, new AppError('NOT_FOUND', `no such operation (${req.method}); see /openapi.json for the routes`, { method: req.method }));
  });
}
