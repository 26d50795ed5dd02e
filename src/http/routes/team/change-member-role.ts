import { changeRole } from '../../../domain/accounts/members.ts';
import { Empty, errors, KeyBearer, MemberIdParams, RoleChange } from '../../schemas.ts';
import { principalOf, type App } from '../../types.ts';
import type { Ctx } from '../../../domain/context.ts';

export default function changeTeamMemberRole(app: App, s: { ctx: Ctx }): void {
  app.post('/openapi/v1/user/team/members/:memberId/role', {
    config: { family: 'account', auth: { kind: 'key', capability: 'manageMembers' } },
    schema: {
      tags: ['team'], summary: 'Change a member\'s role (Admins never change the Owner)', security: KeyBearer,
      params: MemberIdParams, body: RoleChange,
      response: { 200: Empty, ...errors(400, 401, 403, 404, 409) },
    },
  }, async (req) => {
    const p = principalOf(req);
    await changeRole(s.ctx, p.teamId, req.params.memberId, req.body.role, p);
    return {};
  });
}
