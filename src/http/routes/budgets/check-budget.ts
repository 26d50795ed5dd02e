import { Type } from 'typebox';
import { checkMemberBudget } from '../../../domain/budgets/budgets.ts';
import { errors, KeyBearer } from '../../schemas.ts';
import { principalOf, type App } from '../../types.ts';
import { Enough } from './schemas.ts';
import type { Ctx } from '../../../domain/context.ts';

export default function checkBudgetRoute(app: App, s: { ctx: Ctx }): void {
  app.post('/openapi/v1/user/team/check-budget', {
    config: { family: 'account', auth: { kind: 'key', capability: 'readBudgets' } },
    schema: {
      tags: ['team budgets'], summary: 'Check member budget (enough when remaining > 0)', security: KeyBearer,
      body: Type.Object({ member_id: Type.String({ minLength: 1 }) }),
      response: { 200: Enough, ...errors(400, 401, 403, 404) },
    },
  }, async (req) => ({ enough: await checkMemberBudget(s.ctx, principalOf(req), req.body.member_id) }));
}
