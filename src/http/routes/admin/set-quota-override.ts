import { Type } from 'typebox';
import { setQuotaOverride } from '../../../domain/quotas/quotas.ts';
import { Empty, errors, Int64Input, OperatorBearer, UserIdParams } from '../../schemas.ts';
import type { App } from '../../types.ts';
import type { Ctx } from '../../../domain/context.ts';

export default function setQuotaOverrideRoute(app: App, s: { ctx: Ctx }): void {
  app.route({
    method: ['PUT', 'POST'], // POST too: operators' scripts use either verb for a setting
    url: '/admin/v1/teams/:userId/quotas',
    config: { family: 'operator', auth: { kind: 'operator' } },
    schema: {
      tags: ['admin'], summary: 'Override a team\'s currentQuota for one model and quota type (null removes it)', security: OperatorBearer,
      params: UserIdParams,
      body: Type.Object({
        model: Type.String({ minLength: 1 }),
        quotaType: Type.String({ enum: ['RPM', 'TPM', 'IPM'] }),
        currentQuota: Type.Union([Int64Input, Type.Null()]),
      }),
      response: { 200: Empty, ...errors(400, 401, 404) },
    },
    handler: async (req) => {
      await setQuotaOverride(s.ctx, req.params.userId, req.body.model, req.body.quotaType, req.body.currentQuota);
      return {};
    },
  });
}
