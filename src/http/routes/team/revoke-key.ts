import { revokeKey } from '../../../domain/keys/keys.ts';
import { Empty, errors, KeyBearer, KeyIdParams } from '../../schemas.ts';
import { principalOf, type App } from '../../types.ts';
import type { Ctx } from '../../../domain/context.ts';

export default function revokeOwnKey(app: App, s: { ctx: Ctx }): void {
  app.post('/openapi/v1/user/keys/:keyId/revoke', {
    config: { family: 'account', auth: { kind: 'key', capability: 'manageOwnKeys' } },
    schema: {
      tags: ['team'], summary: 'Revoke an API key (own keys; Owner/Admin: any key of the team)', security: KeyBearer,
      params: KeyIdParams,
      response: { 200: Empty, ...errors(401, 403, 404) },
    },
  }, async (req) => {
    await revokeKey(s.ctx, req.params.keyId, principalOf(req));
    return {};
  });
}
