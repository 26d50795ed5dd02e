import { Type } from 'typebox';
import { requestReset } from '../../../domain/accounts/persons.ts';
import type { Accounts } from '../../../domain/accounts/accounts.ts';
import { errors } from '../../schemas.ts';
import type { App } from '../../types.ts';
import { Email } from './schemas.ts';

export default function forgotPassword(app: App, s: { accounts: Accounts }): void {
  app.post('/console/password/forgot', {
    config: { family: 'account', auth: { kind: 'public' } },
    schema: {
      tags: ['accounts'], summary: 'Forgot password: a reset link goes to the address if it has an account; the same answer if not',
      body: Type.Object({ email: Email }),
      response: { 202: Type.Object({}), ...errors(400) },
    },
  }, async (req, reply) => {
    await requestReset(s.accounts, req.body.email);
    reply.code(202);
    return {};
  });
}
