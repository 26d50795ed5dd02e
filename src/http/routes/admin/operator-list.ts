import { Type } from 'typebox';
import { listOperators } from '../../../domain/accounts/operators.ts';
import type { Accounts } from '../../../domain/accounts/accounts.ts';
import { errors, OperatorBearer } from '../../schemas.ts';
import type { App } from '../../types.ts';
import { OperatorGrantView } from './operator-schema.ts';

export default function operatorListRoute(app: App, s: { accounts: Accounts }): void {
  app.get('/admin/v1/operators', {
    config: { family: 'operator', auth: { kind: 'operator' } },
    schema: {
      tags: ['admin'], summary: 'The operator accounts: invited and active grants, oldest first', security: OperatorBearer,
      response: { 200: Type.Object({ operators: Type.Array(OperatorGrantView) }), ...errors(401, 403) },
    },
  }, async () => ({ operators: await listOperators(s.accounts) }));
}
