import { Type } from 'typebox';
import { addMember } from '../../../domain/accounts/members.ts';
import { errors, KeyBearer, NewMember } from '../../schemas.ts';
import { principalOf, type App } from '../../types.ts';
import type { Ctx } from '../../../domain/context.ts';

export default function addTeamMember(app: App, s: { ctx: Ctx }): void {
  app.post('/openapi/v1/user/team/members', {
    config: { family: 'account', auth: { kind: 'key', capability: 'manageMembers' } },
    schema: {
      tags: ['team'], summary: 'Add a member to the caller\'s team', security: KeyBearer,
      body: NewMember,
      response: { 200: Type.Object({ memberId: Type.String() }), ...errors(400, 401, 403, 409) },
    },
  }, async (req) => {
    const p = principalOf(req);
    return { memberId: await addMember(s.ctx, p.teamId, req.body, p) };
  });
}
