import { Type } from 'typebox';
import { setEnabledModels } from '../../../domain/accounts/teams.ts';
import { Empty, errors, OperatorBearer, UserIdParams } from '../../schemas.ts';
import type { App } from '../../types.ts';
import type { Ctx } from '../../../domain/context.ts';

export default function setTeamModelsRoute(app: App, s: { ctx: Ctx }): void {
  app.route({
    method: ['PUT', 'POST'], // POST too: operators' scripts use either verb for a setting
    url: '/admin/v1/teams/:userId/models',
    config: { family: 'operator', auth: { kind: 'operator' } },
    schema: {
      tags: ['admin'], summary: 'Set the models enabled for a team (null: every available model, the default)', security: OperatorBearer,
      params: UserIdParams,
      body: Type.Object({ enabledModels: Type.Union([Type.Array(Type.String({ minLength: 1 })), Type.Null()]) }),
      response: { 200: Empty, ...errors(400, 401, 404) },
    },
    handler: async (req) => {
      await setEnabledModels(s.ctx, req.params.userId, req.body.enabledModels);
      return {};
    },
  });
}
