// Schemas shared by several routes. Route-specific ones live in the route file.
import { Type, type TSchema } from 'typebox';
import type { FastifySchema, RouteOptions } from 'fastify';
import { MAX_AMOUNT_UNITS, MAX_PRICE_UNITS } from '../lib/money.ts';

export const ErrorBody = Type.Object({
  code: Type.Integer({ description: 'HTTP status' }),
  reason: Type.String({ description: 'UPPER_SNAKE reason' }),
  message: Type.String(),
  metadata: Type.Record(Type.String(), Type.Unknown()),
}, { $id: 'ErrorBody', additionalProperties: true });

/** Standard error responses for a route, so the OpenAPI document lists them. */
export function errors(...codes: number[]): Record<number, TSchema> {
  const out: Record<number, TSchema> = {};
  for (const c of codes) out[c] = Type.Ref('ErrorBody');
  return out;
}

/**
 * A response documented with its own media types, e.g. JSON or, when the request asks to
 * stream, `text/event-stream` (the form @fastify/swagger takes for a response).
 */
export interface DocResponse {
  description: string;
  content: Record<string, { schema: TSchema }>;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * Responses listed in /openapi.json only. Fastify serializes a reply with the route's
     * `schema.response` (fast-json-stringify: unknown fields dropped, types coerced), so a
     * route that passes an upstream's body through as it came documents that body here.
     * A status also in `schema.response` is documented from there.
     */
    docResponses?: Record<number, TSchema | DocResponse>;
  }
}

/** @fastify/swagger `transform`: adds each route's `config.docResponses` to the document. */
export function documentResponses({ schema, url, route }: { schema: FastifySchema; url: string; route: RouteOptions }): { schema: FastifySchema; url: string } {
  const docs = route.config?.docResponses;
  if (!docs) return { schema, url };
  return { schema: { ...schema, response: { ...docs, ...(schema?.response as object | undefined) } }, url };
}

export const Empty = Type.Object({}, { additionalProperties: false });

// ---- numbers: every integer a client sends has the bounds of where it goes ----

/** The largest value of a PostgreSQL integer (int4) column, and of any count or size we take. */
export const INT32_MAX = 2_147_483_647;
/**
 * The latest Unix second taken (9000-01-01T00:00:00Z): far beyond any bill or term, and far
 * enough from year 10000 that a window or bucket computed from it (a month on, a second
 * past) is still a date that PostgreSQL reads back from its ISO form. Clients' "no end"
 * sentinels (9999999999, 2^32) are within it.
 */
export const UNIX_SECONDS_MAX = 221_845_392_000;

/** An integer bound for an int4 column (or a count, size, page); `minimum` as the field needs. */
export function Int32(opts: { minimum?: number; exclusiveMinimum?: number; maximum?: number; description?: string; default?: number } = {}) {
  return Type.Integer({ ...(opts.exclusiveMinimum === undefined ? { minimum: -INT32_MAX - 1 } : {}), maximum: INT32_MAX, ...opts });
}

/**
 * An int64 carried as a JSON number or, above 2^53, as a string of digits. One schema with a
 * type list (not a union) so that AJV's type coercion never turns one form into the other:
 * a string like "9007199254740993" must reach the domain as written. A JSON number is
 * exact only within ±(2^53 − 1) (JSON.parse rounds beyond), so larger ones must be strings;
 * a string must fit int64 (`format: int64`, checked in plugins/validation.ts).
 */
export const Int64Input = Type.Unsafe<number | string>({
  type: ['integer', 'string'], pattern: '^-?[0-9]+$', format: 'int64',
  minimum: -Number.MAX_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER,
  description: '64-bit integer: a JSON number within ±(2^53 − 1), or a string of digits',
});

export const KeyBearer = [{ apiKey: [] as string[] }];
export const OperatorBearer = [{ operatorToken: [] as string[] }];

export const MemberView = Type.Object({
  memberId: Type.String(), userId: Type.String(), email: Type.String(), role: Type.String(), status: Type.String(),
  phone: Type.String(), remarkName: Type.String(), createdAt: Type.String(),
});
export const KeyView = Type.Object({
  keyId: Type.String(), memberId: Type.String(), name: Type.String(), mask: Type.String(), status: Type.String(),
  createdAt: Type.String(),
});
export const NewMember = Type.Object({
  email: Type.String({ minLength: 3, maxLength: 255 }),
  role: Type.String({ enum: ['Owner', 'Admin', 'Developer', 'Basic', 'Billing'] }),
  phone: Type.Optional(Type.String({ maxLength: 32 })),
  remarkName: Type.Optional(Type.String({ maxLength: 255 })),
});
export const RoleChange = Type.Object({ role: Type.String({ enum: ['Owner', 'Admin', 'Developer', 'Basic', 'Billing'] }) });
export const CreatedKey = Type.Object({ keyId: Type.String(), apiKey: Type.String({ description: 'shown once' }) });
export const MemberIdParams = Type.Object({ memberId: Type.String({ minLength: 1 }) });
export const KeyIdParams = Type.Object({ keyId: Type.String({ minLength: 1 }) });
export const UserIdParams = Type.Object({ userId: Type.String({ minLength: 1 }) });

/** A non-negative int64: a JSON number up to 2^53 − 1, or a string of digits (see Int64Input). */
export const UInt64Input = Type.Unsafe<number | string>({
  type: ['integer', 'string'], pattern: '^[0-9]+$', format: 'int64', minimum: 0, maximum: Number.MAX_SAFE_INTEGER,
  description: 'non-negative 64-bit integer: a JSON number up to 2^53 − 1, or a string of digits',
});

/**
 * An amount of money in units (1/10000 USD), as a JSON number or a string of digits, at most
 * MAX_AMOUNT_UNITS: kept in micro-units (× 10^6) in int8 columns, an amount must leave room
 * for sums. The bound on the string form is checked where it is read (lib/int64.ts).
 */
export const UnitsInput = Type.Unsafe<number | string>({
  type: ['integer', 'string'], pattern: '^[0-9]+$', format: 'int64', minimum: 0, maximum: Number(MAX_AMOUNT_UNITS),
  description: `units (1/10000 USD), 0-${MAX_AMOUNT_UNITS}: a JSON number or a string of digits`,
});

/**
 * A price in units per pricing unit (GPU-hour, GPU-month, GB-month, million tokens), at most
 * MAX_PRICE_UNITS: a price is multiplied by counts (tokens, GPUs, months) into int8 micro-units.
 */
export const PriceInput = Type.Unsafe<number | string>({
  type: ['integer', 'string'], pattern: '^[0-9]+$', format: 'int64', minimum: 0, maximum: Number(MAX_PRICE_UNITS),
  description: `units (1/10000 USD), 0-${MAX_PRICE_UNITS}: a JSON number or a string of digits`,
});
