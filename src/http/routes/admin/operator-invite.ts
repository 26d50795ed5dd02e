import { Type } from 'typebox';
import { inviteOperator } from '../../../domain/accounts/operators.ts';
import type { Accounts } from '../../../domain/accounts/accounts.ts';
import { errors, OperatorBearer } from '../../schemas.ts';
import { operatorOf, type App } from '../../types.ts';
import { Email } from '../accounts/schemas.ts';
import { OperatorGrantView } from './operator-schema.ts';

export default function operatorInviteRoute(app: App, s: { accounts: Accounts }): void {
  app.post('/admin/v1/operators', {
    config: { family: 'operator', auth: { kind: 'operator' } },
    schema: {
      tags: ['admin'], summary: 'Make an address an operator account: a link (24 h) by e-mail, followed with the account\'s password or a new one; two-factor sign-in is required before the operator views open. Again for an invited address: a new link', security: OperatorBearer,
      body: Type.Object({ email: Email }),
      response: { 200: OperatorGrantView, ...errors(400, 401, 403, 409) },
    },
  }, async (req) => inviteOperator(s.accounts, req.body.email, operatorOf(req)));
}
