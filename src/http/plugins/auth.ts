// Authenticates every route by what it declares in `config.auth`; undeclared routes are refused.
import { AppError } from '../../lib/errors.ts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { actorName, TOKEN_ACTOR, type OperatorActor } from '../../domain/accounts/operators.ts';
import { can, type Capability, type Principal } from '../../domain/roles.ts';
import type { App } from '../types.ts';
import type { Config } from '../../config.ts';
import type { KeyAuthenticator } from '../../domain/keys/authenticator.ts';
import type { OperatorTokenVerifier } from '../../domain/operator-token.ts';
import { checkCsrf, checkOperatorSession, CSRF_HEADER, findSession, sessionPrincipal, type Sessions } from '../../domain/console/sessions.ts';
import { sessionSecret } from '../cookies.ts';
import type { AuthThrottle } from '../../domain/auth-throttle.ts';

/** What authenticating reads: API keys, the operator token, console sessions, failed attempts, the settings. */
export interface Authenticators {
  config: Config;
  keys: KeyAuthenticator;
  operatorToken: OperatorTokenVerifier;
  sessions: Sessions;
  authThrottle: AuthThrottle;
}

export function registerAuth(app: App, s: Authenticators): void {
  app.decorateRequest('principal', null);
  app.decorateRequest('operator', null);
  // Callback style with a synchronous path: a cached key (every model request but one a
  // second) authenticates without a promise.
  app.addHook('onRequest', (req, reply, done) => {
    let pending: Promise<unknown> | undefined;
    try {
      pending = check(req, reply);
    } catch (e) {
      return done(e as Error);
    }
    if (pending === undefined) done();
    else pending.then(() => done(), done);
  });

  const admit = (req: FastifyRequest, capability: Capability | undefined, principal: Principal): void => {
    if (capability && !can(principal.role, capability)) {
      throw new AppError('FORBIDDEN', `role ${principal.role} may not perform this operation`, { role: principal.role });
    }
    req.principal = principal;
  };

  function check(req: FastifyRequest, reply: FastifyReply): Promise<unknown> | undefined {
    const auth = req.routeOptions.config?.auth;
    if (!req.routeOptions.url) return; // 404s go to the not-found handler
    if (!auth) throw new AppError('UNKNOWN', 'route has no auth declaration');
    if (auth.kind === 'public') return;
    // A console session (cookie) stands for its key or token when no credential is sent,
    // unless the route takes keys only (the serverless data plane).
    const sessionAllowed = auth.kind !== 'key' || auth.consoleSession !== false;
    const secret = !sessionAllowed || presentedCredential(req, auth.kind === 'key' && auth.xApiKey === true) ? undefined : sessionSecret(req);
    if (secret !== undefined) return throttled(req, undefined, () => viaSession(req, reply, secret, auth.kind === 'key' ? auth.capability : undefined, auth.kind === 'operator'));
    if (auth.kind === 'operator') {
      const header = req.headers.authorization;
      const verify = () => {
        const pending = s.operatorToken.verify(header); // re-read ≤ 1 s: rotation
        if (pending instanceof Promise) return pending.then(() => actAsOperator(req, reply, TOKEN_ACTOR));
        actAsOperator(req, reply, TOKEN_ACTOR);
        return undefined;
      };
      return header ? throttled(req, header, verify) : verify(); // no credential is no guess: not counted
    }
    const key = auth.xApiKey ? anthropicKey(req) : req.headers.authorization;
    const authenticate = () => {
      const principal = s.keys.authenticate(key);
      if (principal instanceof Promise) return principal.then((p) => admit(req, auth.capability, p));
      admit(req, auth.capability, principal);
    };
    return key ? throttled(req, key, authenticate) : authenticate();
  }

  /**
   * A credential's check under the auth throttle: refused (429) before it is checked while its
   * address or prefix is locked out, and counted when it fails. `credential`: the key or token
   * as sent (a session cookie counts against the address only).
   */
  function throttled(req: FastifyRequest, credential: string | undefined, attempt: () => Promise<unknown> | undefined): Promise<unknown> | undefined {
    return s.authThrottle.attempt(() => req.ip, credential, attempt);
  }

  async function viaSession(req: FastifyRequest, reply: FastifyReply, secret: string, capability: Capability | undefined, operator: boolean): Promise<void> {
    const row = await findSession(s.sessions, secret);
    if (req.method !== 'GET' && req.method !== 'HEAD') checkCsrf(row, headerValue(req.headers[CSRF_HEADER]));
    if (operator) return actAsOperator(req, reply, await checkOperatorSession(s.sessions, row));
    admit(req, capability, await sessionPrincipal(s.sessions, row));
  }
}

/**
 * Who acts on an operator route: on the request, and in every log line of it (the request log
 * is the operator's audit trail: `operator` is `operator-token` or the operator person's id).
 */
function actAsOperator(req: FastifyRequest, reply: FastifyReply, actor: OperatorActor): void {
  req.operator = actor;
  req.log = req.log.child({ operator: actorName(actor) });
  reply.log = req.log; // "request completed" is logged by the reply
}

/** Whether the request carries a credential of its own (it wins over a session cookie). */
function presentedCredential(req: FastifyRequest, xApiKey: boolean): boolean {
  return !!req.headers.authorization || (xApiKey && !!headerValue(req.headers['x-api-key']));
}

function headerValue(h: string | string[] | undefined): string | undefined {
  return typeof h === 'string' ? h : undefined;
}

/** The key of an Anthropic-style request: `x-api-key` (what Anthropic's SDKs send), else `Authorization: Bearer`. */
function anthropicKey(req: FastifyRequest): string {
  const x = req.headers['x-api-key'];
  const key = typeof x === 'string' && x.trim() !== '' ? x : req.headers.authorization;
  if (!key) throw new AppError('UNAUTHORIZED', 'missing API key: send "x-api-key: <API key>" or "Authorization: Bearer <API key>"');
  return key;
}
