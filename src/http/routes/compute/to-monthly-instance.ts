import { Type } from 'typebox';
import { MAX_TERM_MONTHS, toMonthly } from '../../../domain/compute/instances.ts';
import { errors, Int32, KeyBearer } from '../../schemas.ts';
import { principalOf, type App } from '../../types.ts';
import { GPU_BASE } from './schemas.ts';
import type { Compute } from '../../../domain/compute/compute.ts';

export default function toMonthlyInstanceRoute(app: App, s: { compute: Compute }): void {
  app.post(`${GPU_BASE}/gpu/instance/transToMonthlyInstance`, {
    config: { family: 'gpu', auth: { kind: 'key', capability: 'changeCompute' } },
    schema: {
      tags: ['gpu-instances'], summary: 'Convert an onDemand instance to monthly (posts a monthly_re_config bill)', security: KeyBearer,
      body: Type.Object({ instanceId: Type.String({ minLength: 1 }), month: Int32({ minimum: 1, maximum: MAX_TERM_MONTHS, description: 'months' }) }),
      response: { 200: Type.Object({}), ...errors(400, 401, 403) },
    },
  }, async (req) => {
    await toMonthly(s.compute, principalOf(req), req.body.instanceId, req.body.month);
    return {};
  });
}
