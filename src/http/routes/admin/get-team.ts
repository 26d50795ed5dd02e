import { Type } from 'typebox';
import { requireTeam, teamView } from '../../../domain/accounts/teams.ts';
import { getBalance } from '../../../domain/billing/balance.ts';
import { effectiveTier } from '../../../domain/quotas/quotas.ts';
import { errors, OperatorBearer, UserIdParams } from '../../schemas.ts';
import type { App } from '../../types.ts';
import { TeamView } from './team-schema.ts';
import type { Ctx } from '../../../domain/context.ts';
import type { SpendAdmission } from '../../../domain/spend/admission.ts';

export default function getTeamRoute(app: App, s: { ctx: Ctx; spend: SpendAdmission }): void {
  app.get('/admin/v1/teams/:userId', {
    config: { family: 'operator', auth: { kind: 'operator' } },
    schema: {
      tags: ['admin'], summary: 'Get a team with its balance and effective tier', security: OperatorBearer,
      params: UserIdParams,
      response: {
        200: Type.Intersect([TeamView, Type.Object({
          effectiveTier: Type.String(),
          balance: Type.Object({
            availableBalance: Type.String(), cashBalance: Type.String(), creditLimit: Type.String(),
            pendingCharges: Type.String(), outstandingInvoices: Type.String(), voucherBalance: Type.String(),
          }),
        })]),
        ...errors(401, 404),
      },
    },
  }, async (req) => {
    const team = await requireTeam(s.ctx, req.params.userId);
    return {
      ...teamView(team),
      effectiveTier: await effectiveTier(s.ctx, team.id),
      balance: await getBalance(s.ctx, s.spend, team.id),
    };
  });
}
