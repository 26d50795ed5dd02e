import { Type } from 'typebox';
import { requireMember } from '../../../domain/accounts/members.ts';
import { createKey } from '../../../domain/keys/keys.ts';
import { roleRefused } from '../../../domain/errors.ts';
import { assertMayActOn, can } from '../../../domain/roles.ts';
import { CreatedKey, errors, KeyBearer } from '../../schemas.ts';
import { principalOf, type App } from '../../types.ts';
import type { Ctx } from '../../../domain/context.ts';

export default function createOwnKey(app: App, s: { ctx: Ctx }): void {
  app.post('/openapi/v1/user/keys', {
    config: { family: 'account', auth: { kind: 'key', capability: 'manageOwnKeys' } },
    schema: {
      tags: ['team'], summary: 'Create an API key for the caller, or (Owner/Admin) for another member of the team (the secret is shown once)', security: KeyBearer,
      body: Type.Object({
        name: Type.String({ minLength: 1, maxLength: 255 }),
        member_id: Type.Optional(Type.String({ maxLength: 255, description: 'the member the key is for (default: the caller); another member needs member management, and only an Owner creates keys for an Owner' })),
      }),
      response: { 200: CreatedKey, ...errors(400, 401, 403, 404) },
    },
  }, async (req) => {
    const p = principalOf(req);
    const memberId = req.body.member_id || p.memberId;
    if (memberId !== p.memberId) {
      // As listing and revoking: another member's keys are for those who manage members, and an
      // Admin never acts on the Owner (a key of the Owner's would act with the Owner's rights).
      const member = await requireMember(s.ctx, p.teamId, memberId);
      if (!can(p.role, 'manageMembers')) {
        throw roleRefused(p.role, `role ${p.role} may only create its own keys`, { field: 'member_id' });
      }
      assertMayActOn(p, member, 'create a key');
    }
    return createKey(s.ctx, memberId, req.body.name);
  });
}
