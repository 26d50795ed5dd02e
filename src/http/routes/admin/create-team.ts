import { Type } from 'typebox';
import { createTeam } from '../../../domain/accounts/teams.ts';
import { errors, OperatorBearer } from '../../schemas.ts';
import type { App } from '../../types.ts';
import type { Ctx } from '../../../domain/context.ts';

export default function createTeamRoute(app: App, s: { ctx: Ctx }): void {
  app.post('/admin/v1/teams', {
    config: { family: 'operator', auth: { kind: 'operator' } },
    schema: {
      tags: ['admin'], summary: 'Create a team (tenant) with its Owner', security: OperatorBearer,
      body: Type.Object({
        name: Type.String({ minLength: 1, maxLength: 255 }),
        ownerEmail: Type.String({ minLength: 3, maxLength: 255 }),
        tier: Type.Optional(Type.String({ enum: ['T1', 'T2', 'T3', 'T4', 'T5'] })),
      }),
      response: { 200: Type.Object({ userId: Type.String(), ownerMemberId: Type.String() }), ...errors(400, 401) },
    },
  }, async (req) => createTeam(s.ctx, req.body));
}
