import { Type } from 'typebox';
import { listMemberKeys } from '../../../domain/keys/keys.ts';
import { requireMember } from '../../../domain/accounts/members.ts';
import { can } from '../../../domain/roles.ts';
import { AppError } from '../../../lib/errors.ts';
import { errors, KeyBearer, KeyView } from '../../schemas.ts';
import { principalOf, type App } from '../../types.ts';
import type { Ctx } from '../../../domain/context.ts';

export default function listTeamKeys(app: App, s: { ctx: Ctx }): void {
  app.get('/openapi/v1/user/keys', {
    config: { family: 'account', auth: { kind: 'key', capability: 'manageOwnKeys' } },
    schema: {
      tags: ['team'], summary: 'List API keys of a member (default: the caller)', security: KeyBearer,
      querystring: Type.Object({ member_id: Type.Optional(Type.String()) }),
      response: { 200: Type.Object({ keys: Type.Array(KeyView) }), ...errors(401, 403, 404) },
    },
  }, async (req) => {
    const p = principalOf(req);
    const memberId = req.query.member_id || p.memberId;
    await requireMember(s.ctx, p.teamId, memberId);
    if (memberId !== p.memberId && !can(p.role, 'manageMembers')) {
      throw new AppError('FORBIDDEN', `role ${p.role} may only list its own keys`, { role: p.role });
    }
    return { keys: await listMemberKeys(s.ctx, memberId) };
  });
}
