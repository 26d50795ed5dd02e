import { deletePolicy } from '../../../domain/policy/policy.ts';
import { Empty, errors, KeyBearer } from '../../schemas.ts';
import { principalOf, type App } from '../../types.ts';
import { KeyParams, POLICY_URL } from './schemas.ts';
import type { Ctx } from '../../../domain/context.ts';

export default function deletePolicyRoute(app: App, s: { ctx: Ctx }): void {
  app.delete(POLICY_URL, {
    config: { family: 'account', auth: { kind: 'key', capability: 'writePolicy' } },
    schema: {
      tags: ['model access policy'], summary: 'Delete API key model access policy (back to the default)', security: KeyBearer,
      params: KeyParams,
      response: { 200: Empty, ...errors(401, 403, 404) },
    },
  }, async (req) => {
    await deletePolicy(s.ctx, principalOf(req), req.params.stringId);
    return {};
  });
}
