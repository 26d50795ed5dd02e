import { Type } from 'typebox';
import { listTeamMembers } from '../../../domain/accounts/members.ts';
import { errors, KeyBearer, MemberView } from '../../schemas.ts';
import { principalOf, type App } from '../../types.ts';
import type { Ctx } from '../../../domain/context.ts';

export default function listTeamMembersRoute(app: App, s: { ctx: Ctx }): void {
  app.get('/openapi/v1/user/team/members', {
    config: { family: 'account', auth: { kind: 'key', capability: 'manageMembers' } },
    schema: {
      tags: ['team'], summary: 'List the members of the caller\'s team', security: KeyBearer,
      response: { 200: Type.Object({ members: Type.Array(MemberView) }), ...errors(401, 403) },
    },
  }, async (req) => ({ members: await listTeamMembers(s.ctx, principalOf(req).teamId) }));
}
