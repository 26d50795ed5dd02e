import { Type } from 'typebox';
import { setMemberBudgetByOperator } from '../../../domain/budgets/budgets.ts';
import { Empty, errors, MemberIdParams, OperatorBearer } from '../../schemas.ts';
import type { App } from '../../types.ts';
import { BudgetWrite } from '../budgets/schemas.ts';
import type { Ctx } from '../../../domain/context.ts';

export default function setMemberBudgetRoute(app: App, s: { ctx: Ctx }): void {
  app.put('/admin/v1/members/:memberId/budget', {
    config: { family: 'operator', auth: { kind: 'operator' } },
    schema: {
      tags: ['admin'], summary: 'Set a member\'s budget (the tenant API\'s rules; any member, the Owner included)', security: OperatorBearer,
      params: MemberIdParams,
      body: Type.Object(BudgetWrite),
      response: { 200: Empty, ...errors(400, 401, 404) },
    },
  }, async (req) => {
    await setMemberBudgetByOperator(s.ctx, req.params.memberId, req.body);
    return {};
  });
}
