import { Type } from 'typebox';
import { setInventory } from '../../../domain/compute/catalogue.ts';
import { errors, Int32, OperatorBearer } from '../../schemas.ts';
import type { App, Services } from '../../types.ts';

export default function gpuSetInventoryRoute(app: App, s: Pick<Services, 'ctx'>): void {
  app.put('/admin/v1/gpu/products/:productId/inventory/:clusterId', {
    config: { family: 'operator', auth: { kind: 'operator' } },
    schema: {
      tags: ['admin'], summary: 'Set how many GPUs of a product a cluster has', security: OperatorBearer,
      params: Type.Object({ productId: Type.String(), clusterId: Type.String() }),
      body: Type.Object({ totalGpus: Int32({ minimum: 0 }) }),
      response: { 200: Type.Object({ productId: Type.String(), clusterId: Type.String(), totalGpus: Type.Integer() }), ...errors(400, 401, 404) },
    },
  }, async (req) => {
    await setInventory(s.ctx, req.params.productId, req.params.clusterId, req.body.totalGpus);
    return { ...req.params, totalGpus: req.body.totalGpus };
  });
}
