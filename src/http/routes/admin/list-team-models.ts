import { Type } from 'typebox';
import { requireTeam } from '../../../domain/accounts/teams.ts';
import { modelAdminView, teamUsableModels } from '../../../domain/models/models.ts';
import { errors, OperatorBearer, UserIdParams } from '../../schemas.ts';
import type { App } from '../../types.ts';
import { ModelAdminView } from './model-schema.ts';
import type { Ctx } from '../../../domain/context.ts';

export default function listTeamModelsRoute(app: App, s: { ctx: Ctx }): void {
  app.get('/admin/v1/teams/:userId/models', {
    config: { family: 'operator', auth: { kind: 'operator' } },
    schema: {
      tags: ['admin'], summary: 'A team\'s enabled, available models', security: OperatorBearer,
      params: UserIdParams,
      response: {
        200: Type.Object({ enabledModels: Type.Union([Type.Array(Type.String()), Type.Null()]), models: Type.Array(ModelAdminView) }),
        ...errors(401, 404),
      },
    },
  }, async (req) => {
    const team = await requireTeam(s.ctx, req.params.userId);
    return { enabledModels: team.enabledModels ?? null, models: (await teamUsableModels(s.ctx, team)).map(modelAdminView) };
  });
}
