import { Type } from 'typebox';
import { acceptOperatorInvitation } from '../../../domain/accounts/operators.ts';
import { openPersonSession, type Sessions } from '../../../domain/console/sessions.ts';
import type { AuthThrottle } from '../../../domain/auth-throttle.ts';
import type { Config } from '../../../config.ts';
import type { Ctx } from '../../../domain/context.ts';
import { sha256Hex } from '../../../lib/ids.ts';
import { sessionSecret } from '../../cookies.ts';
import { errors } from '../../schemas.ts';
import type { App } from '../../types.ts';
import { SessionView, personSessionAnswer } from '../console/schemas.ts';
import { Password, RecoveryCode, Token, TotpCode } from './schemas.ts';

export default function operatorAcceptRoute(app: App, s: { authThrottle: AuthThrottle; config: Config; ctx: Ctx; sessions: Sessions }): void {
  app.post('/console/operator-invitation/accept', {
    config: { family: 'account', auth: { kind: 'public' } },
    schema: {
      tags: ['accounts'], summary: 'Follow an operator link with a password: signs in to the address\'s account (or makes it) and makes it an operator\'s; every other session of the person ends, a new one is opened',
      body: Type.Object({ token: Token, password: Password, totp: Type.Optional(TotpCode), recoveryCode: Type.Optional(RecoveryCode) }),
      response: { 200: SessionView, ...errors(400, 401, 409, 429) },
    },
  }, async (req, reply) => {
    const who = await s.authThrottle.guard(req.ip, sha256Hex(req.body.token), () => acceptOperatorInvitation(s.sessions.accounts, req.body.token, req.body.password, { totp: req.body.totp, recoveryCode: req.body.recoveryCode }));
    return personSessionAnswer(req, reply, await openPersonSession(s.sessions, who, { userAgent: req.headers['user-agent'], previous: sessionSecret(req) }), s);
  });
}
