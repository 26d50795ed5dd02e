import { Type } from 'typebox';
import { listAllTeams } from '../../../domain/accounts/teams.ts';
import { errors, OperatorBearer } from '../../schemas.ts';
import type { App } from '../../types.ts';
import { TeamView } from './team-schema.ts';
import type { Ctx } from '../../../domain/context.ts';

export default function listTeamsRoute(app: App, s: { ctx: Ctx }): void {
  app.get('/admin/v1/teams', {
    config: { family: 'operator', auth: { kind: 'operator' } },
    schema: {
      tags: ['admin'], summary: 'List teams', security: OperatorBearer,
      response: { 200: Type.Object({ teams: Type.Array(TeamView) }), ...errors(401) },
    },
  }, async () => ({ teams: await listAllTeams(s.ctx) }));
}
