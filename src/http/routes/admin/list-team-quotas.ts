import { Type } from 'typebox';
import { listTeamQuotas } from '../../../domain/quotas/quotas.ts';
import { errors, OperatorBearer, UserIdParams } from '../../schemas.ts';
import type { App } from '../../types.ts';
import type { Ctx } from '../../../domain/context.ts';

export default function listTeamQuotasRoute(app: App, s: { ctx: Ctx }): void {
  app.get('/admin/v1/teams/:userId/quotas', {
    config: { family: 'operator', auth: { kind: 'operator' } },
    schema: {
      tags: ['admin'], summary: 'A team\'s quotas as the team sees them', security: OperatorBearer,
      params: UserIdParams,
      response: { 200: Type.Object({ data: Type.Array(Type.Unknown()), total: Type.Integer() }), ...errors(401, 404) },
    },
  }, async (req) => listTeamQuotas(s.ctx, req.params.userId, {}));
}
