import type { OperatorActor } from '../domain/accounts/operators.ts';
import type { FastifyBaseLogger, FastifyInstance, RawReplyDefaultExpression, RawRequestDefaultExpression, RawServerDefault } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Capability, Principal } from '../domain/roles.ts';
import type { Family } from '../lib/error-families.ts';

export type App = FastifyInstance<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, FastifyBaseLogger, TypeBoxTypeProvider>;

/**
 * One route (one operation): registers itself on the app with the parts of the service graph
 * it uses, each an area's context under the name the graph gives it (`s: { files: Files }`),
 * so it can reach nothing else. A folder's list of routes (its index.ts) takes routes of any
 * needs (`S` = never); the app hands each the whole graph, and the compiler checks there
 * that the graph has what each one names.
 */
export type RouteRegistrar<S = never> = (app: App, s: S) => void;

/** Who may call a route: the operator token, a tenant API key (optionally with a capability), or anyone. */
export type RouteAuth = { kind: 'operator' } | { kind: 'key'; capability?: Capability; xApiKey?: boolean; consoleSession?: boolean } | { kind: 'public' };
// `xApiKey`: the key may also come in `x-api-key` (Anthropic's header), which wins over Authorization.
// `consoleSession: false`: a console session cookie does not stand in for the key (the
// serverless data plane, whose answers are a tenant's own code: API key only).

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: RouteAuth;
    /** The reason family the route answers in (lib/error-families.ts); required of every route. */
    family?: Family;
    /**
     * Refuse a body with every problem the schema finds, not only the first (AJV's allErrors):
     * for bodies an operator writes by hand whole, such as a GPU product's JSON.
     */
    allProblems?: boolean;
  }
  interface FastifyRequest {
    principal: Principal | null;
    /** operator routes: the token or the operator person acting (its log lines name it) */
    operator: OperatorActor | null;
  }
}

/** Who acts on an operator route (set by the auth plugin before the handler runs). */
export function operatorOf(req: { operator: OperatorActor | null }): OperatorActor {
  if (!req.operator) throw new Error('route declared no operator auth but reads its operator');
  return req.operator;
}

export function principalOf(req: { principal: Principal | null }): Principal {
  if (!req.principal) throw new Error('route declared no key auth but reads a principal');
  return req.principal;
}
