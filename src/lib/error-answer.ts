// A failure as the client is told it, framework-free: any thrown value as an AppError (a
// dependency down, two requests racing past a unique check, an internal error that is never
// leaked), in the reason family of the route (error-families.ts), rendered as the unified
// body {code, reason, message, metadata} plus the OpenAI or Anthropic members on the model
// doors. The HTTP error handler (http/plugins/errors.ts, which first tells Fastify's own
// refusals), the model doors' streams and the batch runner (jobs/batches.ts) all answer with
// it. No answer echoes the request's path or body back, and a 5xx never leaks internals.
import { AppError, errorBody } from './errors.ts';
import { DependencyDown, dependencyRefusal, isDatabaseUnreachable } from './dependencies.ts';
import { reasonInFamily, type Family } from './error-families.ts';

/** Any thrown value as the route family's error. */
export function toAppError(err: unknown, family: Family): AppError {
  const e = normalize(err);
  return e.as(reasonInFamily(family, e.reason, typeof e.metadata.field === 'string' ? e.metadata.field : undefined));
}

function normalize(err: unknown): AppError {
  if (err instanceof AppError) return err;
  if (err instanceof DependencyDown) return dependencyRefusal(err.dependency);
  if (isDatabaseUnreachable(err)) return dependencyRefusal('database');
  if (sqlStateOf(err) === UNIQUE_VIOLATION) {
    // Two requests raced past the domain's "does it exist?" check and the store kept one:
    // the other is what it would have been a moment later, a conflict (the message says no SQL).
    return new AppError('CONFLICT', 'a request made at the same time created the same thing first; read it back, or retry', { rule: 'unique' });
  }
  const fe = err as { statusCode?: unknown; code?: unknown } | null | undefined;
  if (typeof fe?.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500) {
    // Any other refusal of the request (by Fastify: http/plugins/errors.ts tells the ones it
    // knows first): the client's to fix, said without quoting it.
    if (fe.statusCode === 413) return new AppError('PAYLOAD_TOO_LARGE', 'the request body is larger than this route accepts');
    if (fe.statusCode === 414) return new AppError('URI_TOO_LONG', 'the request URI is too long');
    if (fe.statusCode === 415) return new AppError('UNSUPPORTED_MEDIA_TYPE', 'unsupported Content-Type');
    return new AppError('INVALID_ARGUMENT', 'the request is malformed', { field: 'request', rule: (fe.code as string | undefined) ?? 'invalid' });
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
