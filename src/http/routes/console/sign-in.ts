import { Type } from 'typebox';
import { openSession, type Sessions } from '../../../domain/console/sessions.ts';
import { setSessionCookie } from '../../cookies.ts';
import { errors } from '../../schemas.ts';
import type { App } from '../../types.ts';
import { SessionView, sessionAnswer } from './schemas.ts';
import type { AuthThrottle } from '../../../domain/auth-throttle.ts';
import type { Config } from '../../../config.ts';
import type { Ctx } from '../../../domain/context.ts';

export default function signIn(app: App, s: { authThrottle: AuthThrottle; config: Config; ctx: Ctx; sessions: Sessions }): void {
  app.post('/console/session', {
    config: { family: 'account', auth: { kind: 'public' } },
    schema: {
      tags: ['console'], summary: 'Sign in to the console: an API key (or the operator token) for an HttpOnly session cookie',
      body: Type.Object({
        apiKey: Type.Optional(Type.String({ maxLength: 256 })),
        operatorToken: Type.Optional(Type.String({ maxLength: 256 })),
      }),
      response: { 200: SessionView, ...errors(400, 401, 403, 429) },
    },
  }, async (req, reply) => {
    // a wrong key or token counts against the address and its prefix; refused before it is checked once over (domain/auth-throttle.ts)
    const presented = req.body.apiKey ?? req.body.operatorToken;
    const { secret, view } = await s.authThrottle.guard(req.ip, presented, () => openSession(s.sessions, req.body));
    setSessionCookie(req, reply, secret, view.expiresAtMs - s.ctx.clock.nowMs(), s.config.console.secureCookie);
    reply.header('cache-control', 'no-store');
    return sessionAnswer(view);
  });
}
