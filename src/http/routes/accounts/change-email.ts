import { Type } from 'typebox';
import { requestEmailChange } from '../../../domain/accounts/persons.ts';
import { requirePersonSession, type Sessions } from '../../../domain/console/sessions.ts';
import type { AuthThrottle } from '../../../domain/auth-throttle.ts';
import { errors } from '../../schemas.ts';
import type { App } from '../../types.ts';
import { sessionCredentials } from '../console/schemas.ts';
import { Email, Password } from './schemas.ts';

export default function changeEmail(app: App, s: { authThrottle: AuthThrottle; sessions: Sessions }): void {
  app.post('/console/email', {
    // public: the person's session cookie is the credential, checked here with its CSRF token
    config: { family: 'account', auth: { kind: 'public' } },
    schema: {
      tags: ['accounts'], summary: 'Change the signed-in person\'s address (the password again): a link goes to the new address, which changes it when followed; the same answer whether or not that address has an account',
      body: Type.Object({ newEmail: Email, password: Password }),
      response: { 202: Type.Object({}), ...errors(400, 401, 403, 429) },
    },
  }, async (req, reply) => {
    const row = await requirePersonSession(s.sessions, ...sessionCredentials(req));
    await s.authThrottle.guard(req.ip, row.personId, () => requestEmailChange(s.sessions.accounts, row.personId, req.body.password, req.body.newEmail));
    reply.code(202);
    return {};
  });
}
