import { Type } from 'typebox';
import { upsertQuotaDefinition } from '../../../domain/quotas/quotas.ts';
import { Empty, errors, Int64Input, OperatorBearer } from '../../schemas.ts';
import type { App } from '../../types.ts';
import type { Ctx } from '../../../domain/context.ts';

export default function upsertQuotaRoute(app: App, s: { ctx: Ctx }): void {
  app.post('/admin/v1/quotas', {
    config: { family: 'operator', auth: { kind: 'operator' } },
    schema: {
      tags: ['admin'], summary: 'Create or replace a quota definition (values above 2^53 as strings)', security: OperatorBearer,
      body: Type.Object({
        model: Type.String({ minLength: 1, maxLength: 200 }),
        modal: Type.String({ minLength: 1, maxLength: 32 }),
        quotaType: Type.String({ enum: ['RPM', 'TPM', 'IPM'] }),
        productType: Type.String({ minLength: 1, maxLength: 64 }),
        defaultQuota: Int64Input,
        tiers: Type.Object({ T1: Int64Input, T2: Int64Input, T3: Int64Input, T4: Int64Input, T5: Int64Input }),
        adjustable: Type.Boolean(),
      }),
      response: { 200: Empty, ...errors(400, 401) },
    },
  }, async (req) => {
    await upsertQuotaDefinition(s.ctx, req.body);
    return {};
  });
}
