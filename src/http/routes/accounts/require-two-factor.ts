import { Type } from 'typebox';
import { setTeamTwoFactor } from '../../../domain/accounts/two-factor.ts';
import type { Accounts } from '../../../domain/accounts/accounts.ts';
import { errors, KeyBearer } from '../../schemas.ts';
import { principalOf, type App } from '../../types.ts';

export default function requireTwoFactor(app: App, s: { accounts: Accounts }): void {
  app.put('/console/team/two-factor', {
    config: { family: 'account', auth: { kind: 'key', capability: 'manageMembers' } },
    schema: {
      tags: ['accounts'], summary: 'Owner: whether persons act in the caller\'s team only with two-factor sign-in on (API keys are not affected)', security: KeyBearer,
      body: Type.Object({ required: Type.Boolean() }),
      response: { 200: Type.Object({}), ...errors(400, 401, 403, 409) },
    },
  }, async (req) => {
    await setTeamTwoFactor(s.accounts, principalOf(req), req.body.required);
    return {};
  });
}
