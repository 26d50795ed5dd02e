import { Type } from 'typebox';
import { confirmEmailChange } from '../../../domain/accounts/persons.ts';
import type { Accounts } from '../../../domain/accounts/accounts.ts';
import type { AuthThrottle } from '../../../domain/auth-throttle.ts';
import { sha256Hex } from '../../../lib/ids.ts';
import { errors } from '../../schemas.ts';
import type { App } from '../../types.ts';
import { Token } from './schemas.ts';

export default function confirmEmail(app: App, s: { accounts: Accounts; authThrottle: AuthThrottle }): void {
  app.post('/console/email/confirm', {
    config: { family: 'account', auth: { kind: 'public' } },
    schema: {
      tags: ['accounts'], summary: 'Follow the link sent to a new address: the account\'s address (and its members\' in every team) becomes it',
      body: Type.Object({ token: Token }),
      response: { 200: Type.Object({}), ...errors(400, 401, 409, 429) },
    },
  }, async (req) => {
    await s.authThrottle.guard(req.ip, sha256Hex(req.body.token), () => confirmEmailChange(s.accounts, req.body.token));
    return {};
  });
}
