import { setMemberStatus } from '../../../domain/accounts/members.ts';
import { Empty, errors, KeyBearer, MemberIdParams } from '../../schemas.ts';
import { principalOf, type App } from '../../types.ts';
import type { Ctx } from '../../../domain/context.ts';

export default function disableTeamMember(app: App, s: { ctx: Ctx }): void {
  app.post('/openapi/v1/user/team/members/:memberId/disable', {
    config: { family: 'account', auth: { kind: 'key', capability: 'manageMembers' } },
    schema: {
      tags: ['team'], summary: 'Disable a member: their keys stop working', security: KeyBearer,
      params: MemberIdParams,
      response: { 200: Empty, ...errors(400, 401, 403, 404, 409) },
    },
  }, async (req) => {
    const p = principalOf(req);
    await setMemberStatus(s.ctx, p.teamId, req.params.memberId, 'disabled', p);
    return {};
  });
}
