// The models one API key may call, for whoever may see the key (the console's key page shows
// them in its snippets, issue 45): what a call with that key would be let through to, by the
// same admission that judges the call (available, enabled for the team, inside the key's
// policy and its member's). `/openai/v1/models` answers the same for the calling key only.
import { Type } from 'typebox';
import { keyAsCaller } from '../../../domain/policy/policy.ts';
import { ModelRecord } from '../../../gateway/openai/schemas.ts';
import { errors, KeyBearer } from '../../schemas.ts';
import { principalOf, type App } from '../../types.ts';
import { KeyParams } from './schemas.ts';
import type { Ctx } from '../../../domain/context.ts';
import type { Gateway } from '../../../gateway/gateway.ts';

export default function listKeyModelsRoute(app: App, s: { ctx: Ctx; gateway: Gateway }): void {
  app.get('/openapi/v2/user/key/:stringId/models', {
    config: { family: 'account', auth: { kind: 'key', capability: 'manageOwnKeys' } },
    schema: {
      tags: ['model access policy'], summary: 'List the models an API key may call (one\'s own keys; Owner/Admin: any of the team\'s)', security: KeyBearer,
      params: KeyParams,
      response: { 200: Type.Object({ object: Type.Literal('list'), data: Type.Array(ModelRecord) }), ...errors(401, 403, 404) },
    },
  }, async (req) => s.gateway.listModels(await keyAsCaller(s.ctx, principalOf(req), req.params.stringId)));
}
