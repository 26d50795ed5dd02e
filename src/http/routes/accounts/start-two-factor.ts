import { Type } from 'typebox';
import { startTotp } from '../../../domain/accounts/two-factor.ts';
import { requirePersonSession, type Sessions } from '../../../domain/console/sessions.ts';
import { errors } from '../../schemas.ts';
import type { App } from '../../types.ts';
import { sessionCredentials } from '../console/schemas.ts';

export default function startTwoFactor(app: App, s: { sessions: Sessions }): void {
  app.post('/console/two-factor', {
    // public: the person's session cookie is the credential, checked here with its CSRF token
    config: { family: 'account', auth: { kind: 'public' } },
    schema: {
      tags: ['accounts'], summary: 'Begin enrolling an authenticator app (TOTP): a new secret, shown this once; two-factor sign-in is on once a code from it is confirmed',
      response: { 200: Type.Object({ secret: Type.String({ description: 'base32' }), otpauthUri: Type.String() }), ...errors(401, 403, 409) },
    },
  }, async (req, reply) => {
    const row = await requirePersonSession(s.sessions, ...sessionCredentials(req));
    reply.header('cache-control', 'no-store');
    return startTotp(s.sessions.accounts, row.personId);
  });
}
