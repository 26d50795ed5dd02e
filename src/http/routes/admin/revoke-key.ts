import { revokeKey } from '../../../domain/keys/keys.ts';
import { Empty, errors, KeyIdParams, OperatorBearer } from '../../schemas.ts';
import type { App } from '../../types.ts';
import type { Ctx } from '../../../domain/context.ts';

export default function revokeKeyRoute(app: App, s: { ctx: Ctx }): void {
  app.post('/admin/v1/keys/:keyId/revoke', {
    config: { family: 'operator', auth: { kind: 'operator' } },
    schema: {
      tags: ['admin'], summary: 'Revoke an API key', security: OperatorBearer,
      params: KeyIdParams,
      response: { 200: Empty, ...errors(401, 404) },
    },
  }, async (req) => {
    await revokeKey(s.ctx, req.params.keyId);
    return {};
  });
}
