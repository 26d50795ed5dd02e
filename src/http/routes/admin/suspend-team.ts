import { Type } from 'typebox';
import { setTeamStatus } from '../../../domain/accounts/teams.ts';
import { Empty, errors, OperatorBearer, UserIdParams } from '../../schemas.ts';
import type { App } from '../../types.ts';
import type { Ctx } from '../../../domain/context.ts';

export default function suspendTeamRoute(app: App, s: { ctx: Ctx }): void {
  app.post('/admin/v1/teams/:userId/suspend', {
    config: { family: 'operator', auth: { kind: 'operator' } },
    schema: {
      tags: ['admin'], summary: 'Suspend (or with {"suspended": false} resume) a team', security: OperatorBearer,
      params: UserIdParams,
      body: Type.Optional(Type.Object({ suspended: Type.Optional(Type.Boolean({ default: true })) })),
      response: { 200: Empty, ...errors(400, 401, 404) },
    },
  }, async (req) => {
    await setTeamStatus(s.ctx, req.params.userId, req.body?.suspended === false ? 'active' : 'suspended');
    return {};
  });
}
