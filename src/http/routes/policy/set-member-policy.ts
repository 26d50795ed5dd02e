import { setMemberPolicy } from '../../../domain/policy/member-policy.ts';
import { errors, KeyBearer } from '../../schemas.ts';
import { principalOf, type App } from '../../types.ts';
import { MEMBER_POLICY_URL, MemberParams, MemberPolicyResponse, PolicyWrite } from './schemas.ts';
import type { Ctx } from '../../../domain/context.ts';

export default function setMemberPolicyRoute(app: App, s: { ctx: Ctx }): void {
  app.put(MEMBER_POLICY_URL, {
    config: { family: 'account', auth: { kind: 'key', capability: 'writePolicy' } },
    schema: {
      tags: ['model access policy'], summary: 'Set a member\'s model access policy: every key of the member, existing and new, is bound by it', security: KeyBearer,
      params: MemberParams,
      body: PolicyWrite,
      response: { 200: MemberPolicyResponse, ...errors(400, 401, 403, 404) },
    },
  }, async (req) => setMemberPolicy(s.ctx, principalOf(req), req.params.memberId, req.body));
}
