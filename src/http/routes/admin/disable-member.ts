import { Type } from 'typebox';
import { setMemberStatus } from '../../../domain/accounts/members.ts';
import { findMember } from '../../../store/accounts.ts';
import { notFound } from '../../../lib/errors.ts';
import { Empty, errors, MemberIdParams, OperatorBearer } from '../../schemas.ts';
import type { App, Services } from '../../types.ts';

export default function disableMemberRoute(app: App, s: Services): void {
  app.post('/admin/v1/members/:memberId/disable', {
    config: { auth: { kind: 'operator' } },
    schema: {
      tags: ['admin'], summary: 'Disable (or with {"disabled": false} re-enable) a member', security: OperatorBearer,
      params: MemberIdParams,
      body: Type.Optional(Type.Object({ disabled: Type.Optional(Type.Boolean({ default: true })) })),
      response: { 200: Empty, ...errors(400, 401, 404, 409) },
    },
  }, async (req) => {
    const m = await findMember(s.ctx.db, req.params.memberId);
    if (!m) throw notFound('member', req.params.memberId);
    await setMemberStatus(s.ctx, m.teamId, m.id, req.body?.disabled === false ? 'active' : 'disabled');
    s.keys.invalidateAll();
    return {};
  });
}
