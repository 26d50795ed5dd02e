import { Type } from 'typebox';
import { resetPassword } from '../../../domain/accounts/persons.ts';
import type { Accounts } from '../../../domain/accounts/accounts.ts';
import type { AuthThrottle } from '../../../domain/auth-throttle.ts';
import { sha256Hex } from '../../../lib/ids.ts';
import { errors } from '../../schemas.ts';
import type { App } from '../../types.ts';
import { NewPassword, Token } from './schemas.ts';

export default function resetPasswordRoute(app: App, s: { accounts: Accounts; authThrottle: AuthThrottle }): void {
  app.post('/console/password/reset', {
    config: { family: 'account', auth: { kind: 'public' } },
    schema: {
      tags: ['accounts'], summary: 'Follow a reset link: a new password; every session of the account is signed out',
      body: Type.Object({ token: Token, password: NewPassword }),
      response: { 200: Type.Object({}), ...errors(400, 401, 429) },
    },
  }, async (req) => {
    await s.authThrottle.guard(req.ip, sha256Hex(req.body.token), () => resetPassword(s.accounts, req.body.token, req.body.password));
    return {};
  });
}
