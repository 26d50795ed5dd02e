import type { FastifyBaseLogger, FastifyInstance, RawReplyDefaultExpression, RawRequestDefaultExpression, RawServerDefault } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Config } from '../config.ts';
import type { Ctx } from '../domain/context.ts';
import type { KeyAuthenticator } from '../domain/keys/authenticator.ts';
import type { Capability, Principal } from '../domain/roles.ts';
import type { Reservations } from '../domain/billing/reservations.ts';
import type { Gateway } from '../gateway/gateway.ts';
import type { Compute } from '../domain/compute/compute.ts';

export type App = FastifyInstance<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, FastifyBaseLogger, TypeBoxTypeProvider>;

/** Everything a route may call. Built once in app.ts. */
export interface Services {
  ctx: Ctx;
  config: Config;
  keys: KeyAuthenticator;
  operatorTokenHash: string;
  reservations: Reservations;
  /** The OpenAI-compatible model gateway (src/gateway). */
  gateway: Gateway;
  /** GPU compute: driver, sealing key, timings; `reconcile()` runs one reconciler pass (tests). */
  compute: Compute & { reconcile(): Promise<number> };
}

/** Who may call a route: the operator token, a tenant API key (optionally with a capability), or anyone. */
export type RouteAuth = { kind: 'operator' } | { kind: 'key'; capability?: Capability } | { kind: 'public' };

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: RouteAuth;
  }
  interface FastifyRequest {
    principal: Principal | null;
  }
}

export function principalOf(req: { principal: Principal | null }): Principal {
  if (!req.principal) throw new Error('route declared no key auth but reads a principal');
  return req.principal;
}
