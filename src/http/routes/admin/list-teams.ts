import { Type } from 'typebox';
import { listAllTeams } from '../../../domain/accounts/teams.ts';
import { errors, OperatorBearer } from '../../schemas.ts';
import type { App, Services } from '../../types.ts';
import { TeamView } from './team-schema.ts';

export default function listTeamsRoute(app: App, s: Pick<Services, 'ctx'>): void {
  app.get('/admin/v1/teams', {
    config: { family: 'operator', auth: { kind: 'operator' } },
    schema: {
      tags: ['admin'], summary: 'List teams', security: OperatorBearer,
      response: { 200: Type.Object({ teams: Type.Array(TeamView) }), ...errors(401) },
    },
  }, async () => ({ teams: await listAllTeams(s.ctx) }));
}
