import { changeRole, requireAnyMember } from '../../../domain/accounts/members.ts';
import { Empty, errors, MemberIdParams, OperatorBearer, RoleChange } from '../../schemas.ts';
import type { App } from '../../types.ts';
import type { Ctx } from '../../../domain/context.ts';

export default function changeMemberRoleRoute(app: App, s: { ctx: Ctx }): void {
  app.post('/admin/v1/members/:memberId/role', {
    config: { family: 'operator', auth: { kind: 'operator' } },
    schema: {
      tags: ['admin'], summary: 'Change a member\'s role', security: OperatorBearer,
      params: MemberIdParams, body: RoleChange,
      response: { 200: Empty, ...errors(400, 401, 404, 409) },
    },
  }, async (req) => {
    const m = await requireAnyMember(s.ctx, req.params.memberId);
    await changeRole(s.ctx, m.teamId, m.id, req.body.role);
    return {};
  });
}
