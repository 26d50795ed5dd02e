import { Type } from 'typebox';
import { disableTotp } from '../../../domain/accounts/two-factor.ts';
import { requirePersonSession, type Sessions } from '../../../domain/console/sessions.ts';
import type { AuthThrottle } from '../../../domain/auth-throttle.ts';
import { errors } from '../../schemas.ts';
import type { App } from '../../types.ts';
import { sessionCredentials } from '../console/schemas.ts';
import { Password, RecoveryCode, TotpCode } from './schemas.ts';

export default function disableTwoFactor(app: App, s: { authThrottle: AuthThrottle; sessions: Sessions }): void {
  app.post('/console/two-factor/disable', {
    // public: the person's session cookie is the credential, checked here with its CSRF token
    config: { family: 'account', auth: { kind: 'public' } },
    schema: {
      tags: ['accounts'], summary: 'Turn two-factor sign-in off: the password and a code (or a recovery code)',
      body: Type.Object({ password: Password, totp: Type.Optional(TotpCode), recoveryCode: Type.Optional(RecoveryCode) }),
      response: { 200: Type.Object({}), ...errors(400, 401, 403, 409, 429) },
    },
  }, async (req) => {
    const row = await requirePersonSession(s.sessions, ...sessionCredentials(req));
    const { password, totp, recoveryCode } = req.body;
    await s.authThrottle.guard(req.ip, row.personId, () => disableTotp(s.sessions.accounts, row.personId, password, { totp, recoveryCode }));
    return {};
  });
}
