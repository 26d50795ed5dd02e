import { Type } from 'typebox';
import { reclaimSpot } from '../../../domain/compute/instances.ts';
import { errors, OperatorBearer } from '../../schemas.ts';
import type { App } from '../../types.ts';
import type { Compute } from '../../../domain/compute/compute.ts';

export default function gpuReclaimSpotRoute(app: App, s: { compute: Compute }): void {
  app.post('/admin/v1/gpu/instances/:instanceId/reclaim', {
    config: { family: 'operator', auth: { kind: 'operator' } },
    schema: {
      tags: ['admin'], summary: 'Reclaim a spot instance: notified now, stopped at spotReclaimTime', security: OperatorBearer,
      params: Type.Object({ instanceId: Type.String() }),
      body: Type.Object({ noticeSeconds: Type.Optional(Type.Integer({ minimum: 0, maximum: 3600 })) }),
      response: { 200: Type.Object({}), ...errors(400, 401) },
    },
  }, async (req) => {
    const n = req.body.noticeSeconds;
    await reclaimSpot(s.compute, req.params.instanceId, n === undefined ? undefined : n * 1000);
    return {};
  });
}
