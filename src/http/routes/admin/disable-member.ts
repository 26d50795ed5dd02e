import { Type } from 'typebox';
import { requireAnyMember, setMemberStatus } from '../../../domain/accounts/members.ts';
import { Empty, errors, MemberIdParams, OperatorBearer } from '../../schemas.ts';
import type { App } from '../../types.ts';
import type { Ctx } from '../../../domain/context.ts';

export default function disableMemberRoute(app: App, s: { ctx: Ctx }): void {
  app.post('/admin/v1/members/:memberId/disable', {
    config: { family: 'operator', auth: { kind: 'operator' } },
    schema: {
      tags: ['admin'], summary: 'Disable (or with {"disabled": false} re-enable) a member', security: OperatorBearer,
      params: MemberIdParams,
      body: Type.Optional(Type.Object({ disabled: Type.Optional(Type.Boolean({ default: true })) })),
      response: { 200: Empty, ...errors(400, 401, 404, 409) },
    },
  }, async (req) => {
    const m = await requireAnyMember(s.ctx, req.params.memberId);
    await setMemberStatus(s.ctx, m.teamId, m.id, req.body?.disabled === false ? 'active' : 'disabled');
    return {};
  });
}
