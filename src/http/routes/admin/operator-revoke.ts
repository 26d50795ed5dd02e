import { Type } from 'typebox';
import { revokeOperator } from '../../../domain/accounts/operators.ts';
import type { Accounts } from '../../../domain/accounts/accounts.ts';
import { Empty, errors, OperatorBearer } from '../../schemas.ts';
import type { App } from '../../types.ts';

export default function operatorRevokeRoute(app: App, s: { accounts: Accounts }): void {
  app.delete('/admin/v1/operators/:grantId', {
    config: { family: 'operator', auth: { kind: 'operator' } },
    schema: {
      tags: ['admin'], summary: 'Revoke an operator grant: its link is refused, and every console session of its person ends at once', security: OperatorBearer,
      params: Type.Object({ grantId: Type.String({ maxLength: 64 }) }),
      response: { 200: Empty, ...errors(401, 403, 404) },
    },
  }, async (req) => {
    await revokeOperator(s.accounts, req.params.grantId);
    return {};
  });
}
