import { Type } from 'typebox';
import { confirmSignup } from '../../../domain/accounts/persons.ts';
import { openPersonSession, type Sessions } from '../../../domain/console/sessions.ts';
import type { AuthThrottle } from '../../../domain/auth-throttle.ts';
import type { Config } from '../../../config.ts';
import type { Ctx } from '../../../domain/context.ts';
import { sha256Hex } from '../../../lib/ids.ts';
import { errors } from '../../schemas.ts';
import type { App } from '../../types.ts';
import { sessionSecret } from '../../cookies.ts';
import { SessionView, personSessionAnswer } from '../console/schemas.ts';
import { Password, Token } from './schemas.ts';

export default function confirm(app: App, s: { authThrottle: AuthThrottle; config: Config; ctx: Ctx; sessions: Sessions }): void {
  app.post('/console/confirm', {
    config: { family: 'account', auth: { kind: 'public' } },
    schema: {
      tags: ['accounts'], summary: 'Follow a confirm link with the password chosen at sign-up: the account, a team of its own (T1, Owner), signed in',
      body: Type.Object({ token: Token, password: Password }),
      response: { 200: SessionView, ...errors(400, 401, 429) },
    },
  }, async (req, reply) => {
    const who = await s.authThrottle.guard(req.ip, sha256Hex(req.body.token), () => confirmSignup(s.sessions.accounts, req.body.token, req.body.password));
    return personSessionAnswer(req, reply, await openPersonSession(s.sessions, who, { userAgent: req.headers['user-agent'], previous: sessionSecret(req) }), s);
  });
}
