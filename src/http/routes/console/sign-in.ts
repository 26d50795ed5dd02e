import { Type } from 'typebox';
import { openPersonSession, openSession, type Sessions } from '../../../domain/console/sessions.ts';
import { oneCredential } from '../../../domain/console/errors.ts';
import { signIn as signInPerson } from '../../../domain/accounts/persons.ts';
import { sha256Hex } from '../../../lib/ids.ts';
import { setSessionCookie, sessionSecret } from '../../cookies.ts';
import { errors } from '../../schemas.ts';
import type { App } from '../../types.ts';
import { SessionView, personSessionAnswer, sessionAnswer } from './schemas.ts';
import type { AuthThrottle } from '../../../domain/auth-throttle.ts';
import type { Config } from '../../../config.ts';
import type { Ctx } from '../../../domain/context.ts';

export default function signIn(app: App, s: { authThrottle: AuthThrottle; config: Config; ctx: Ctx; sessions: Sessions }): void {
  app.post('/console/session', {
    config: { family: 'account', auth: { kind: 'public' } },
    schema: {
      tags: ['console'], summary: 'Sign in to the console: an e-mail address and password, or an API key (or the operator token), for an HttpOnly session cookie',
      body: Type.Object({
        apiKey: Type.Optional(Type.String({ maxLength: 256 })),
        operatorToken: Type.Optional(Type.String({ maxLength: 256 })),
        email: Type.Optional(Type.String({ maxLength: 254 })),
        password: Type.Optional(Type.String({ maxLength: 1024 })),
        totp: Type.Optional(Type.String({ maxLength: 16, description: 'with email and password, when two-factor sign-in is on: the code of the authenticator app' })),
        recoveryCode: Type.Optional(Type.String({ maxLength: 32, description: 'instead of totp: one of the recovery codes, once' })),
      }),
      response: { 200: SessionView, ...errors(400, 401, 403, 429) },
    },
  }, async (req, reply) => {
    const { email, password, totp, recoveryCode, ...creds } = req.body;
    if (email !== undefined || password !== undefined) {
      if (email === undefined || password === undefined || creds.apiKey !== undefined || creds.operatorToken !== undefined) throw oneCredential();
      // failures count against the address and the account (a hash of the address: the throttle's "prefix", domain/auth-throttle.ts)
      const who = await s.authThrottle.guard(req.ip, sha256Hex(email.trim().toLowerCase()), () => signInPerson(s.sessions.accounts, email, password, { totp, recoveryCode }));
      const opened = await openPersonSession(s.sessions, who, { userAgent: req.headers['user-agent'], previous: sessionSecret(req) });
      return personSessionAnswer(req, reply, opened, s);
    }
    // a wrong key or token counts against the address and its prefix; refused before it is checked once over (domain/auth-throttle.ts)
    const presented = creds.apiKey ?? creds.operatorToken;
    const { secret, view } = await s.authThrottle.guard(req.ip, presented, () => openSession(s.sessions, creds));
    setSessionCookie(req, reply, secret, view.expiresAtMs - s.ctx.clock.nowMs(), s.config.console.secureCookie);
    reply.header('cache-control', 'no-store');
    return sessionAnswer(view);
  });
}
