import { Type } from 'typebox';
import { getDefaultKeyBudget } from '../../../domain/budgets/budgets.ts';
import { errors, KeyBearer } from '../../schemas.ts';
import { principalOf, type App } from '../../types.ts';
import { DefaultKeyBudget } from './schemas.ts';
import type { Ctx } from '../../../domain/context.ts';

export default function getDefaultKeyBudgetRoute(app: App, s: { ctx: Ctx }): void {
  app.get('/openapi/v1/user/team/default-key-budget', {
    config: { family: 'account', auth: { kind: 'key', capability: 'readBudgets' } },
    schema: {
      tags: ['team budgets'], summary: 'Get the budget every new key of a member starts with', security: KeyBearer,
      querystring: Type.Object({ member_id: Type.String({ minLength: 1 }) }),
      response: { 200: DefaultKeyBudget, ...errors(400, 401, 403, 404) },
    },
  }, async (req) => getDefaultKeyBudget(s.ctx, principalOf(req), req.query.member_id));
}
