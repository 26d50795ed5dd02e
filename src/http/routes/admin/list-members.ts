import { Type } from 'typebox';
import { listTeamMembers } from '../../../domain/accounts/members.ts';
import { requireTeam } from '../../../domain/accounts/teams.ts';
import { errors, MemberView, OperatorBearer, UserIdParams } from '../../schemas.ts';
import type { App } from '../../types.ts';
import type { Ctx } from '../../../domain/context.ts';

export default function listMembersRoute(app: App, s: { ctx: Ctx }): void {
  app.get('/admin/v1/teams/:userId/members', {
    config: { family: 'operator', auth: { kind: 'operator' } },
    schema: {
      tags: ['admin'], summary: 'List a team\'s members', security: OperatorBearer,
      params: UserIdParams,
      response: { 200: Type.Object({ members: Type.Array(MemberView) }), ...errors(401, 404) },
    },
  }, async (req) => {
    await requireTeam(s.ctx, req.params.userId);
    return { members: await listTeamMembers(s.ctx, req.params.userId) };
  });
}
