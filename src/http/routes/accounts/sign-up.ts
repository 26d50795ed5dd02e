import { Type } from 'typebox';
import { requestSignup } from '../../../domain/accounts/persons.ts';
import type { Accounts } from '../../../domain/accounts/accounts.ts';
import { errors } from '../../schemas.ts';
import type { App } from '../../types.ts';
import { Email, NewPassword } from './schemas.ts';

export default function signUp(app: App, s: { accounts: Accounts }): void {
  app.post('/console/sign-up', {
    config: { family: 'account', auth: { kind: 'public' } },
    schema: {
      tags: ['accounts'], summary: 'Sign up (GANTRY_SIGNUP=open): a confirm link goes to the address; the same answer whether or not it has an account',
      body: Type.Object({ email: Email, password: NewPassword }),
      response: { 202: Type.Object({}), ...errors(400, 403) },
    },
  }, async (req, reply) => {
    await requestSignup(s.accounts, req.body.email, req.body.password);
    reply.code(202);
    return {};
  });
}
