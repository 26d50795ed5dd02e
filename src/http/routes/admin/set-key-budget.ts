import { Type } from 'typebox';
import { setKeyBudgetByOperator } from '../../../domain/budgets/budgets.ts';
import { Empty, errors, KeyIdParams, OperatorBearer } from '../../schemas.ts';
import type { App } from '../../types.ts';
import { BudgetWrite } from '../budgets/schemas.ts';
import type { Ctx } from '../../../domain/context.ts';

export default function setKeyBudgetRoute(app: App, s: { ctx: Ctx }): void {
  app.put('/admin/v1/keys/:keyId/budget', {
    config: { family: 'operator', auth: { kind: 'operator' } },
    schema: {
      tags: ['admin'], summary: 'Set an API key\'s budget (the tenant API\'s rules; any active key)', security: OperatorBearer,
      params: KeyIdParams,
      body: Type.Object(BudgetWrite),
      response: { 200: Empty, ...errors(400, 401, 404) },
    },
  }, async (req) => {
    await setKeyBudgetByOperator(s.ctx, req.params.keyId, req.body);
    return {};
  });
}
