import { Type } from 'typebox';
import { listMembers } from '../../../store/accounts.ts';
import { memberView } from '../../../domain/accounts/members.ts';
import { errors, KeyBearer, MemberView } from '../../schemas.ts';
import { principalOf, type App, type Services } from '../../types.ts';

export default function listTeamMembers(app: App, s: Services): void {
  app.get('/openapi/v1/user/team/members', {
    config: { auth: { kind: 'key', capability: 'manageMembers' } },
    schema: {
      tags: ['team'], summary: 'List the members of the caller\'s team', security: KeyBearer,
      response: { 200: Type.Object({ members: Type.Array(MemberView) }), ...errors(401, 403) },
    },
  }, async (req) => ({ members: (await listMembers(s.ctx.db, principalOf(req).teamId)).map(memberView) }));
}
