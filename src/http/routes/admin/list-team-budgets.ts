import { Type } from 'typebox';
import { listTeamBudgets } from '../../../domain/budgets/budgets.ts';
import { requireTeam } from '../../../domain/accounts/teams.ts';
import { errors, OperatorBearer, UserIdParams } from '../../schemas.ts';
import type { App } from '../../types.ts';
import { KeyBudgetEntry, MemberBudgetEntry } from '../budgets/schemas.ts';
import type { Ctx } from '../../../domain/context.ts';

export default function listTeamBudgetsRoute(app: App, s: { ctx: Ctx }): void {
  app.get('/admin/v1/teams/:userId/budgets', {
    config: { family: 'operator', auth: { kind: 'operator' } },
    schema: {
      tags: ['admin'], summary: 'A team\'s budgets: every member\'s, with its active keys\' (limits and spend in units, this month)', security: OperatorBearer,
      params: UserIdParams,
      response: { 200: Type.Object({ budgets: Type.Array(Type.Object({ ...MemberBudgetEntry.properties, keys: Type.Array(KeyBudgetEntry) })) }), ...errors(401, 404) },
    },
  }, async (req) => {
    await requireTeam(s.ctx, req.params.userId);
    return listTeamBudgets(s.ctx, req.params.userId);
  });
}
