import { Type } from 'typebox';
import { changePassword } from '../../../domain/accounts/persons.ts';
import { openPersonSession, requirePersonSession, type Sessions } from '../../../domain/console/sessions.ts';
import type { AuthThrottle } from '../../../domain/auth-throttle.ts';
import type { Config } from '../../../config.ts';
import type { Ctx } from '../../../domain/context.ts';
import { errors } from '../../schemas.ts';
import type { App } from '../../types.ts';
import { SessionView, personSessionAnswer, sessionCredentials } from '../console/schemas.ts';
import { NewPassword, Password } from './schemas.ts';

export default function changePasswordRoute(app: App, s: { authThrottle: AuthThrottle; config: Config; ctx: Ctx; sessions: Sessions }): void {
  app.post('/console/password', {
    // public: the person's session cookie is the credential, checked here with its CSRF token
    config: { family: 'account', auth: { kind: 'public' } },
    schema: {
      tags: ['accounts'], summary: 'Change the signed-in person\'s password: every other session is signed out, this one is made anew',
      body: Type.Object({ currentPassword: Password, newPassword: NewPassword }),
      response: { 200: SessionView, ...errors(400, 401, 403, 429) },
    },
  }, async (req, reply) => {
    const [secret, csrf] = sessionCredentials(req);
    const row = await requirePersonSession(s.sessions, secret, csrf);
    await s.authThrottle.guard(req.ip, row.personId, () => changePassword(s.sessions.accounts, row.personId, req.body.currentPassword, req.body.newPassword, row.id));
    const opened = await openPersonSession(s.sessions, { personId: row.personId, teamId: row.teamId! }, { userAgent: req.headers['user-agent'], previous: secret });
    return personSessionAnswer(req, reply, opened, s);
  });
}
