import { Type } from 'typebox';
import { checkMemberBudgetByCost } from '../../../domain/budgets/budgets.ts';
import { errors, KeyBearer } from '../../schemas.ts';
import { principalOf, type App } from '../../types.ts';
import { Cost, Enough } from './schemas.ts';
import type { Ctx } from '../../../domain/context.ts';

export default function checkBudgetByCostRoute(app: App, s: { ctx: Ctx }): void {
  app.post('/openapi/v1/user/team/check-budget-by-cost', {
    config: { family: 'account', auth: { kind: 'key', capability: 'readBudgets' } },
    schema: {
      tags: ['team budgets'], summary: 'Check member budget against a cost (enough when remaining >= cost)', security: KeyBearer,
      body: Type.Object({ member_id: Type.String({ minLength: 1 }), cost: Cost }),
      response: { 200: Enough, ...errors(400, 401, 403, 404) },
    },
  }, async (req) => ({ enough: await checkMemberBudgetByCost(s.ctx, principalOf(req), req.body.member_id, req.body.cost) }));
}
