// The Fastify hooks of error answers: the error handler, the not-found handler, the
// framework's refusals before routing and the HTTP parser's before a request exists. Each
// tells Fastify's own refusals (validation, content types, the router) in fixed words, then
// answers with the framework-free rendering of lib/error-answer.ts: {code, reason, message,
// metadata} in the reason family of the route (lib/error-families.ts). A 5xx never leaks
// internals; no answer echoes the request's path or body back (a client's own bytes are never reflected).
import type { Socket } from 'node:net';
import type { ConnectionError, FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../lib/errors.ts';
import { DependencyDown, isDatabaseUnreachable } from '../../lib/dependencies.ts';
import { errorPayload, toAppError } from '../../lib/error-answer.ts';
import { familyOfPath, type Family } from '../../lib/error-families.ts';
import type { DependencyHealth } from '../../store/health.ts';
import { newId } from '../../lib/ids.ts';
import { nodeHttp } from '../../lib/node-http.ts';
import type { App } from '../types.ts';
import type { AllowedMethods } from '../allowed-methods.ts';

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

/** Each field the validator refused, once, with its rule (one entry unless the route asked for allProblems). */
function describeValidation(err: FastifyError): { field: string; rule: string }[] {
  const ctx = err.validationContext ?? 'body';
  const seen = new Map<string, string>();
  for (const e of (err.validation?.length ? err.validation : [{}]) as AjvError[]) {
    const { field, rule } = describeOne(e, ctx);
    // the first rule a field broke says it; a union's other branches would repeat it
    if (!seen.has(field)) seen.set(field, rule);
  }
  return [...seen].map(([field, rule]) => ({ field, rule }));
}

function describeOne(first: AjvError, ctx: string): { field: string; rule: string } {
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

/**
 * Fastify's own refusals as the AppError they are (the validator's, the content-type
 * parser's, the router's), each in a fixed sentence; anything else is left as it was thrown,
 * for lib/error-answer.ts (a dependency down, a unique index, another 4xx, an internal error).
 */
function fromFastify(err: unknown): unknown {
  if (err instanceof AppError || err instanceof DependencyDown || isDatabaseUnreachable(err)) return err;
  const fe = err as FastifyError;
  if (fe?.validation) {
    const problems = describeValidation(fe);
    const { field, rule } = problems[0]!;
    if (problems.length === 1) return new AppError('INVALID_ARGUMENT', `${field}: ${rule}`, { field, rule });
    // every problem at once (config.allProblems): metadata names the first, the message all of them
    const list = problems.map((p) => `${p.field}: ${p.rule}`).join('; ');
    return new AppError('INVALID_ARGUMENT', `${problems.length} problems: ${list}`, { field, rule, problems: problems.length });
  }
  const known = fe?.code ? FASTIFY_ERRORS[fe.code] : undefined;
  if (known) return new AppError(known.reason, known.message, known.field ? { field: known.field, rule: fe.code } : {});
  if (fe?.code === 'FST_ERR_CTP_INVALID_CHARSET' || /charset/i.test(String(fe?.message ?? '')) && fe?.statusCode === 415) {
    return new AppError('UNSUPPORTED_MEDIA_TYPE', 'unsupported charset: send UTF-8', {});
  }
  return err;
}

export function sendError(reply: FastifyReply, req: FastifyRequest, err: unknown, family: Family = familyOf(req)): FastifyReply {
  const e = toAppError(fromFastify(err), family);
  if (e.headers) reply.headers(e.headers);
  // set here too: a refusal before routing (a bad %-escape) runs no onRequest hook
  reply.header('x-request-id', req.id);
  // Anthropic's SDKs read the id of an error from `request-id` (APIError.requestID), as of any answer
  if (family === 'anthropic') reply.header('request-id', req.id);
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
  const id = newId('request');
  const ids = family === 'anthropic' ? `x-request-id: ${id}\r\nrequest-id: ${id}` : `x-request-id: ${id}`;
  socket.end(`HTTP/1.1 ${told.status} ${STATUS_CODES[told.status] ?? ''}\r\nContent-Type: application/json; charset=utf-8\r\n`
    + `Content-Length: ${Buffer.byteLength(body)}\r\n${ids}\r\nConnection: close\r\n\r\n${body}`);
  // end() lets the client read the answer (a destroy could reset it unread); a client that never closes is cut off
  setTimeout(() => socket.destroy(), CLIENT_ERROR_LINGER_MS).unref();
}

export function registerErrorHandling(app: App, health?: DependencyHealth, allowed?: AllowedMethods): void {
  app.setErrorHandler((err, req, reply) => {
    // A connection failure tells the replica's health, so the next requests are refused at once.
    if (health && !(err instanceof AppError) && isDatabaseUnreachable(err)) health.down('database', err);
    const e = toAppError(fromFastify(err), familyOf(req));
    if (e.status >= 500 && e.reason !== 'SERVICE_NOT_AVAILABLE') req.log.error({ err }, 'request failed');
    return sendError(reply, req, e);
  });
  app.setNotFoundHandler((req, reply) => {
    // No route: the message names the method only; the path is the client's own text.
    return sendError(reply, req, noRoute(req.method, allowed?.at(req.url) ?? []));
  });
}

/**
 * The answer when no route matched: a path served with other methods is 405 with `Allow`
 * (Gantry's decision; the real service never sends it), any other path a 404 that says the
 * path is unknown: API_NOT_FOUND, which the model doors answer too (a 404 there used to be
 * MODEL_NOT_FOUND, and `moderations.create` read as "model not found").
 */
function noRoute(method: string, allow: string[]): AppError {
  if (allow.length) {
    const list = allow.join(', ');
    return new AppError('METHOD_NOT_ALLOWED', `this path does not answer ${method}; it answers ${list}`, { method, allow: list }, { allow: list });
  }
  return new AppError('API_NOT_FOUND', `unknown path: no operation of the API is at this path (${method}); see /openapi.json for the routes`, { method });
}
