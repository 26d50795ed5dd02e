import { setPolicy } from '../../../domain/policy/policy.ts';
import { errors, KeyBearer } from '../../schemas.ts';
import { principalOf, type App } from '../../types.ts';
import { KeyParams, POLICY_URL, PolicyResponse, PolicyWrite } from './schemas.ts';
import type { Ctx } from '../../../domain/context.ts';

export default function setPolicyRoute(app: App, s: { ctx: Ctx }): void {
  app.put(POLICY_URL, {
    config: { family: 'account', auth: { kind: 'key', capability: 'writePolicy' } },
    schema: {
      tags: ['model access policy'], summary: 'Set API key model access policy', security: KeyBearer,
      params: KeyParams,
      body: PolicyWrite,
      response: { 200: PolicyResponse, ...errors(400, 401, 403, 404) },
    },
  }, async (req) => setPolicy(s.ctx, principalOf(req), req.params.stringId, req.body));
}
