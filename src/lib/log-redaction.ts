// What Gantry's logs never carry: credentials (API keys, operator tokens, passwords, image
// credentials) and the parameter values of a failed query (a new key's secret hash, a
// sealed password, anything a request wrote). Applied to every pino logger the app builds
// (Fastify's, and the gateway, reconciler and journal loggers that are its children):
// - objects handed to a log call are copied with secret-named fields replaced;
// - errors are logged from an allow-list of fields: type, a cleaned message, stack frames,
//   codes and names (constraint, table, column), never `params`, `detail` or `where`;
// - every finished line is scrubbed of anything shaped like a key, a token or a SHA-256.
export const REDACTED = '[redacted]';

/** Field names (lower case, without `-`, `_` and `.`) whose values are secrets wherever they appear. */
const SECRET_FIELDS = new Set([
  'authorization', 'proxyauthorization', 'cookie', 'setcookie', 'xapikey', 'apikey', 'password', 'passwd', 'passwordenc',
  'secret', 'clientsecret', 'secretkey', 'secrethash', 'token', 'accesstoken', 'refreshtoken', 'idtoken', 'admintoken',
  'operatortoken', 'operatortokenhash', 'imageauth', 'imageauthenc', 'dockerconfigjson', 'params', 'parameters',
  'upstreamkeysealed', 'apikeysealed',
]);

export function isSecretField(name: string): boolean {
  return SECRET_FIELDS.has(name.toLowerCase().replace(/[-_.]/g, ''));
}

/** Shapes of secrets in free text: API keys, operator tokens, bearer credentials, SHA-256 hex digests, URL passwords, link signatures. */
const SECRET_TEXT: [RegExp, string][] = [
  [/\bsk_[A-Za-z0-9_-]{16,}/g, `sk_${REDACTED}`],
  [/\bgop_[A-Za-z0-9_-]{16,}/g, `gop_${REDACTED}`],
  [/\bwhsec_[A-Za-z0-9+/=]{16,}/g, `whsec_${REDACTED}`],
  [/\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]{16,}/gi, `$1 ${REDACTED}`],
  [/(?<!sha256:)\b[0-9a-fA-F]{64}\b/g, REDACTED], // a key's hash; an image digest (sha256:…) stays
  [/(\/\/[^/\s:@"]+:)[^@\s/"]+@/g, `$1${REDACTED}@`],
  // a signed link's signature is a bearer credential until it expires (/blobs/…?signature=, S3 presigned URLs);
  // so is a web terminal's ticket (?ticket=, domain/terminals/tickets.ts)
  [/([?&](?:signature|ticket|x-amz-signature|x-amz-credential|x-amz-security-token)=)[^&\s"#\\]+/gi, `$1${REDACTED}`],
];

export function scrubText(s: string): string {
  let out = s;
  for (const [re, by] of SECRET_TEXT) out = out.replace(re, by);
  return out;
}

/**
 * Database messages that quote a value: PostgreSQL's input errors, Drizzle's
 * "Failed query: … params: …", pg's "Key (col)=(value)" and "Failing row contains (…)".
 */
const VALUE_IN_MESSAGE: [RegExp, string][] = [
  [/\nparams: [\s\S]*$/, ''],
  [/(invalid input (?:syntax|value) for [^:\n]*: )"[\s\S]*"/, `$1"${REDACTED}"`],
  [/(value )"[^"\n]*"( is out of range)/, `$1"${REDACTED}"$2`],
  [/(Key \([^)\n]*\)=\()[\s\S]*?(\) )/, `$1${REDACTED}$2`],
  [/(Failing row contains \()[\s\S]*\)/, `$1${REDACTED})`],
];

export function cleanErrorMessage(message: string): string {
  let out = message;
  for (const [re, by] of VALUE_IN_MESSAGE) out = out.replace(re, by);
  return scrubText(out);
}

/** Error fields worth logging that never hold request data (pg/PGlite, Node, Fastify, AppError). */
const ERROR_FIELDS = [
  'code', 'errno', 'syscall', 'statusCode', 'status', 'reason', 'metadata', 'severity', 'constraint', 'table', 'column',
  'schema', 'dataType', 'routine', 'position',
] as const;

const MAX_DEPTH = 6;

function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (v === null || typeof v !== 'object') return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/** An error as a log field: allow-listed fields, a message and stack without quoted values, its causes. */
export function serializeError(e: unknown, depth = 0): Record<string, unknown> {
  if (!(e instanceof Error)) {
    if (isPlainObject(e) && typeof e.message === 'string' && typeof e.type === 'string') return e; // already serialized here
    return { type: typeof e, message: scrubText(String(e)) };
  }
  const type = e.constructor?.name || e.name || 'Error';
  const message = cleanErrorMessage(e.message ?? '');
  const frames = String(e.stack ?? '').split('\n').filter((l) => /^\s+at /.test(l));
  const out: Record<string, unknown> = { type, message, stack: [`${e.name}: ${message}`, ...frames].join('\n') };
  const fields = e as unknown as Record<string, unknown>;
  for (const k of ERROR_FIELDS) {
    const v = fields[k];
    if (v !== undefined && v !== null) out[k] = redactValue(v, depth + 1);
  }
  if (depth < MAX_DEPTH) {
    if (e.cause !== undefined) out.cause = serializeError(e.cause, depth + 1);
    if (e instanceof AggregateError) out.errors = e.errors.slice(0, 10).map((x) => serializeError(x, depth + 1));
  }
  return out;
}

/**
 * A copy of `v` fit for a log line: secret-named fields replaced, errors serialized, text
 * scrubbed. Objects that are not plain (a request, a reply) are left to their serializers.
 */
export function redactValue(v: unknown, depth = 0, seen = new WeakSet<object>()): unknown {
  if (typeof v === 'string') return scrubText(v);
  if (v === null || typeof v !== 'object') return v;
  if (v instanceof Error) return serializeError(v, depth);
  if (depth > MAX_DEPTH || seen.has(v)) return '[…]';
  if (Array.isArray(v)) {
    seen.add(v);
    return v.map((x) => redactValue(x, depth + 1, seen));
  }
  if (!isPlainObject(v)) return v;
  seen.add(v);
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) out[k] = isSecretField(k) && x !== '' && x != null ? REDACTED : redactValue(x, depth + 1, seen);
  return out;
}

interface RequestLike {
  method?: string;
  url?: string;
  host?: string;
  ip?: string;
  socket?: { remotePort?: number } | null;
}

/** The request as Fastify logs it (method, url, host, remote address), with the URL scrubbed; never headers or body. */
function serializeRequest(req: RequestLike): Record<string, unknown> {
  return { method: req.method, url: scrubText(String(req.url ?? '')), host: req.host, remoteAddress: req.ip, remotePort: req.socket?.remotePort };
}

type LogMethod = (this: unknown, ...args: unknown[]) => void;

/**
 * pino options (as Fastify's `logger` takes them) that keep secrets out of every line;
 * `base` may set the level and the destination stream.
 */
export function redactingLoggerOptions(base: Record<string, unknown>): Record<string, unknown> {
  const baseHooks = (base.hooks ?? {}) as Record<string, unknown>;
  return {
    ...base,
    serializers: { ...(base.serializers as object | undefined), err: serializeError, req: serializeRequest },
    hooks: {
      ...baseHooks,
      logMethod(this: unknown, args: unknown[], method: LogMethod) {
        const [first, ...rest] = args;
        if (first instanceof Error) {
          // pino would take the raw message as the line's msg: give it the cleaned one
          const err = serializeError(first);
          return method.apply(this, [{ err }, ...(typeof rest[0] === 'string' ? rest.map((r) => redactValue(r)) : [err.message, ...rest])]);
        }
        return method.apply(this, args.map((a) => redactValue(a)));
      },
      streamWrite: (line: string) => scrubText(line),
    },
  };
}
