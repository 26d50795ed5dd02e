import { Type } from 'typebox';
import { listKeyBudgets } from '../../../domain/budgets/budgets.ts';
import { errors, KeyBearer } from '../../schemas.ts';
import { principalOf, type App } from '../../types.ts';
import { KeyBudgetEntry } from './schemas.ts';
import type { Ctx } from '../../../domain/context.ts';

export default function listKeyBudgetsRoute(app: App, s: { ctx: Ctx }): void {
  app.get('/openapi/v1/user/team/key-budget-list', {
    config: { family: 'account', auth: { kind: 'key', capability: 'readBudgets' } },
    schema: {
      tags: ['team budgets'], summary: 'Query API-key budget list for a member', security: KeyBearer,
      querystring: Type.Object({ member_id: Type.String({ minLength: 1 }) }),
      response: { 200: Type.Object({ key_budgets: Type.Array(KeyBudgetEntry) }), ...errors(400, 401, 403, 404) },
    },
  }, async (req) => listKeyBudgets(s.ctx, principalOf(req), req.query.member_id));
}
