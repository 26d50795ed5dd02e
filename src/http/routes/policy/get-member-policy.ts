import { getMemberPolicy } from '../../../domain/policy/member-policy.ts';
import { errors, KeyBearer } from '../../schemas.ts';
import { principalOf, type App } from '../../types.ts';
import { MEMBER_POLICY_URL, MemberParams, MemberPolicyResponse } from './schemas.ts';
import type { Ctx } from '../../../domain/context.ts';

export default function getMemberPolicyRoute(app: App, s: { ctx: Ctx }): void {
  app.get(MEMBER_POLICY_URL, {
    config: { family: 'account', auth: { kind: 'key', capability: 'readPolicy' } },
    schema: {
      tags: ['model access policy'], summary: 'Get a member\'s model access policy (binds every key of the member)', security: KeyBearer,
      params: MemberParams,
      response: { 200: MemberPolicyResponse, ...errors(401, 403, 404) },
    },
  }, async (req) => getMemberPolicy(s.ctx, principalOf(req), req.params.memberId));
}
