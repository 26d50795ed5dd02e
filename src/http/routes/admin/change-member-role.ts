import { changeRole } from '../../../domain/accounts/members.ts';
import { findMember } from '../../../store/accounts.ts';
import { notFound } from '../../../lib/errors.ts';
import { Empty, errors, MemberIdParams, OperatorBearer, RoleChange } from '../../schemas.ts';
import type { App, Services } from '../../types.ts';

export default function changeMemberRoleRoute(app: App, s: Services): void {
  app.post('/admin/v1/members/:memberId/role', {
    config: { auth: { kind: 'operator' } },
    schema: {
      tags: ['admin'], summary: 'Change a member\'s role', security: OperatorBearer,
      params: MemberIdParams, body: RoleChange,
      response: { 200: Empty, ...errors(400, 401, 404, 409) },
    },
  }, async (req) => {
    const m = await findMember(s.ctx.db, req.params.memberId);
    if (!m) throw notFound('member', req.params.memberId);
    await changeRole(s.ctx, m.teamId, m.id, req.body.role);
    s.keys.invalidateAll();
    return {};
  });
}
