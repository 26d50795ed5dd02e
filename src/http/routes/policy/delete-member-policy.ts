import { deleteMemberPolicy } from '../../../domain/policy/member-policy.ts';
import { Empty, errors, KeyBearer } from '../../schemas.ts';
import { principalOf, type App } from '../../types.ts';
import { MEMBER_POLICY_URL, MemberParams } from './schemas.ts';
import type { Ctx } from '../../../domain/context.ts';

export default function deleteMemberPolicyRoute(app: App, s: { ctx: Ctx }): void {
  app.delete(MEMBER_POLICY_URL, {
    config: { family: 'account', auth: { kind: 'key', capability: 'writePolicy' } },
    schema: {
      tags: ['model access policy'], summary: 'Delete a member\'s model access policy (its keys keep only their own)', security: KeyBearer,
      params: MemberParams,
      response: { 200: Empty, ...errors(401, 403, 404) },
    },
  }, async (req) => {
    await deleteMemberPolicy(s.ctx, principalOf(req), req.params.memberId);
    return {};
  });
}
