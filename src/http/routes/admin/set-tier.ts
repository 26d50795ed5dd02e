import { Type } from 'typebox';
import { setTeamTier } from '../../../domain/accounts/teams.ts';
import { Empty, errors, OperatorBearer, UserIdParams } from '../../schemas.ts';
import type { App } from '../../types.ts';
import type { Ctx } from '../../../domain/context.ts';

export default function setTierRoute(app: App, s: { ctx: Ctx }): void {
  app.route({
    method: ['PUT', 'POST'], // POST too: operators' scripts use either verb for a setting
    url: '/admin/v1/teams/:userId/tier',
    config: { family: 'operator', auth: { kind: 'operator' } },
    schema: {
      tags: ['admin'], summary: 'Set the operator tier (the effective tier is the higher of this and the top-up tier)', security: OperatorBearer,
      params: UserIdParams,
      body: Type.Object({ tier: Type.String({ enum: ['T1', 'T2', 'T3', 'T4', 'T5'] }) }),
      response: { 200: Empty, ...errors(400, 401, 404) },
    },
    handler: async (req) => {
      await setTeamTier(s.ctx, req.params.userId, req.body.tier);
      return {};
    },
  });
}
