import { Type } from 'typebox';
import { listTeamQuotas } from '../../../domain/quotas/quotas.ts';
import { errors, KeyBearer } from '../../schemas.ts';
import { principalOf, type App } from '../../types.ts';
import type { Ctx } from '../../../domain/context.ts';

const Int64String = Type.String({ pattern: '^[0-9]+$', description: '64-bit integer as a JSON string' });

export default function listQuotasRoute(app: App, s: { ctx: Ctx }): void {
  app.get('/openapi/v1/user/quota/list', {
    config: { family: 'account', auth: { kind: 'key', capability: 'readQuotas' } },
    schema: {
      tags: ['quotas'], summary: 'Query quota list', security: KeyBearer,
      querystring: Type.Object({
        modal: Type.Optional(Type.String()),
        quotaType: Type.Optional(Type.String()),
        productType: Type.Optional(Type.String()),
        quotaObject: Type.Optional(Type.String({ description: 'model id, fuzzy' })),
      }),
      response: {
        200: Type.Object({
          data: Type.Array(Type.Object({
            modal: Type.String(), quotaObject: Type.String(), quotaType: Type.String(), productType: Type.String(),
            currentQuota: Int64String, defaultQuota: Int64String, adjustable: Type.Boolean(),
            quotaItems: Type.Array(Type.Object({ tier: Type.String(), quota: Int64String })),
          })),
          total: Type.Integer(),
        }),
        ...errors(401, 403),
      },
    },
  }, async (req) => listTeamQuotas(s.ctx, principalOf(req).teamId, req.query));
}
