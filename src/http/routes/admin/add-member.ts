import { Type } from 'typebox';
import { addMember } from '../../../domain/accounts/members.ts';
import { requireTeam } from '../../../domain/accounts/teams.ts';
import { errors, NewMember, OperatorBearer, UserIdParams } from '../../schemas.ts';
import type { App } from '../../types.ts';
import type { Ctx } from '../../../domain/context.ts';

export default function addMemberRoute(app: App, s: { ctx: Ctx }): void {
  app.post('/admin/v1/teams/:userId/members', {
    config: { family: 'operator', auth: { kind: 'operator' } },
    schema: {
      tags: ['admin'], summary: 'Add a member to a team', security: OperatorBearer,
      params: UserIdParams, body: NewMember,
      response: { 200: Type.Object({ memberId: Type.String() }), ...errors(400, 401, 404, 409) },
    },
  }, async (req) => {
    await requireTeam(s.ctx, req.params.userId);
    return { memberId: await addMember(s.ctx, req.params.userId, req.body) };
  });
}
