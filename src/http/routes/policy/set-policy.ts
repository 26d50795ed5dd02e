import { Type } from 'typebox';
import { setPolicy } from '../../../domain/policy/policy.ts';
import { errors, Int32, KeyBearer } from '../../schemas.ts';
import { principalOf, type App, type Services } from '../../types.ts';
import { KeyParams, ModelRef, POLICY_URL, PolicyResponse } from './schemas.ts';

export default function setPolicyRoute(app: App, s: Services): void {
  app.put(POLICY_URL, {
    config: { family: 'account', auth: { kind: 'key', capability: 'writePolicy' } },
    schema: {
      tags: ['model access policy'], summary: 'Set API key model access policy', security: KeyBearer,
      params: KeyParams,
      body: Type.Object({
        schemaVersion: Type.Optional(Int32({ description: 'int32; currently 1' })),
        productScope: Type.Optional(Type.String()),
        mode: Type.String({ enum: ['all_enabled', 'selected'] }),
        allowedModels: Type.Optional(Type.Array(ModelRef)),
        excludedModels: Type.Optional(Type.Array(ModelRef)),
        source: Type.Optional(Type.Unknown({ description: 'Ignored on write; managed by the server' })),
      }),
      response: { 200: PolicyResponse, ...errors(400, 401, 403, 404) },
    },
  }, async (req) => setPolicy(s.ctx, principalOf(req), req.params.stringId, req.body));
}
