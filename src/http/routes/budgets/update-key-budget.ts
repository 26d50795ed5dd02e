import { Type } from 'typebox';
import { setKeyBudget } from '../../../domain/budgets/budgets.ts';
import { Empty, errors, KeyBearer } from '../../schemas.ts';
import { principalOf, type App } from '../../types.ts';
import { BudgetWrite } from './schemas.ts';
import type { Ctx } from '../../../domain/context.ts';

export default function updateKeyBudgetRoute(app: App, s: { ctx: Ctx }): void {
  app.put('/openapi/v1/user/team/key-budget', {
    config: { family: 'account', auth: { kind: 'key', capability: 'updateKeyBudget' } },
    schema: {
      tags: ['team budgets'], summary: 'Update API-key budget', security: KeyBearer,
      body: Type.Object({ member_id: Type.String({ minLength: 1 }), key_id: Type.String({ minLength: 1 }), ...BudgetWrite }),
      response: { 200: Empty, ...errors(400, 401, 403, 404) },
    },
  }, async (req) => {
    const { member_id, key_id, ...budget } = req.body;
    await setKeyBudget(s.ctx, principalOf(req), member_id, key_id, budget);
    return {};
  });
}
