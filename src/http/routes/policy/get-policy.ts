import { getPolicy } from '../../../domain/policy/policy.ts';
import { errors, KeyBearer } from '../../schemas.ts';
import { principalOf, type App } from '../../types.ts';
import { KeyParams, POLICY_URL, PolicyResponse } from './schemas.ts';
import type { Ctx } from '../../../domain/context.ts';

export default function getPolicyRoute(app: App, s: { ctx: Ctx }): void {
  app.get(POLICY_URL, {
    config: { family: 'account', auth: { kind: 'key', capability: 'readPolicy' } },
    schema: {
      tags: ['model access policy'], summary: 'Get API key model access policy', security: KeyBearer,
      params: KeyParams,
      response: { 200: PolicyResponse, ...errors(401, 403, 404) },
    },
  }, async (req) => getPolicy(s.ctx, principalOf(req), req.params.stringId));
}
