import { Type } from 'typebox';
import { listMemberBudgets } from '../../../domain/budgets/budgets.ts';
import { errors, KeyBearer } from '../../schemas.ts';
import { principalOf, type App } from '../../types.ts';
import { MemberBudgetEntry } from './schemas.ts';
import type { Ctx } from '../../../domain/context.ts';

export default function listMemberBudgetsRoute(app: App, s: { ctx: Ctx }): void {
  app.get('/openapi/v1/user/team/budget-list', {
    config: { family: 'account', auth: { kind: 'key', capability: 'readBudgets' } },
    schema: {
      tags: ['team budgets'], summary: 'Query team member budget list', security: KeyBearer,
      response: {
        200: Type.Object({ member_count: Type.Integer(), budget_count: Type.Integer(), budgets: Type.Array(MemberBudgetEntry) }),
        ...errors(401, 403),
      },
    },
  }, async (req) => listMemberBudgets(s.ctx, principalOf(req)));
}
