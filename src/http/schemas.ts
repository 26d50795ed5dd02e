// Schemas shared by several routes. Route-specific ones live in the route file.
import { Type, type TSchema } from 'typebox';
import type { FastifySchema, RouteOptions } from 'fastify';

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

/**
 * An int64 carried as a JSON number or, above 2^53, as a string of digits. One schema with a
 * type list (not a union) so that AJV's type coercion never turns one form into the other:
 * a string like "9007199254740993" must reach the domain as written.
 */
export const Int64Input = Type.Unsafe<number | string>({
  type: ['integer', 'string'], pattern: '^-?[0-9]+$', description: '64-bit integer: a JSON number, or a string of digits above 2^53',
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

/** A non-negative int64 (money in units, prices): a JSON number, or a string of digits. */
export const UInt64Input = Type.Unsafe<number | string>({
  type: ['integer', 'string'], pattern: '^[0-9]+$', minimum: 0, description: 'non-negative 64-bit integer; a string of digits above 2^53',
});
