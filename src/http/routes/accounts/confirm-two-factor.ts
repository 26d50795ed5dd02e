import { Type } from 'typebox';
import { confirmTotp } from '../../../domain/accounts/two-factor.ts';
import { requirePersonSession, type Sessions } from '../../../domain/console/sessions.ts';
import { errors } from '../../schemas.ts';
import type { App } from '../../types.ts';
import { sessionCredentials } from '../console/schemas.ts';
import { TotpCode } from './schemas.ts';

export default function confirmTwoFactor(app: App, s: { sessions: Sessions }): void {
  app.post('/console/two-factor/confirm', {
    // public: the person's session cookie is the credential, checked here with its CSRF token
    config: { family: 'account', auth: { kind: 'public' } },
    schema: {
      tags: ['accounts'], summary: 'Confirm the enrolment with a code from the app: two-factor sign-in on, recovery codes (shown this once), the other sessions signed out',
      body: Type.Object({ code: TotpCode }),
      response: { 200: Type.Object({ recoveryCodes: Type.Array(Type.String()) }), ...errors(400, 401, 403, 409) },
    },
  }, async (req, reply) => {
    const row = await requirePersonSession(s.sessions, ...sessionCredentials(req));
    reply.header('cache-control', 'no-store');
    return { recoveryCodes: await confirmTotp(s.sessions.accounts, row.personId, req.body.code, row.id) };
  });
}
