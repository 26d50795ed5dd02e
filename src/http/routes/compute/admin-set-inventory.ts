import { Type } from 'typebox';
import { setOperatorInventory } from '../../../domain/compute/gpu-inventory.ts';
import { errors, Int32, OperatorBearer } from '../../schemas.ts';
import type { App } from '../../types.ts';
import type { Compute } from '../../../domain/compute/compute.ts';

export default function gpuSetInventoryRoute(app: App, s: { compute: Compute }): void {
  app.put('/admin/v1/gpu/products/:productId/inventory/:clusterId', {
    config: { family: 'operator', auth: { kind: 'operator' } },
    schema: {
      tags: ['admin'], summary: 'Set how many GPUs of a product a cluster has (409 for the cluster whose GPUs the compute driver reads: its inventory follows them)', security: OperatorBearer,
      params: Type.Object({ productId: Type.String(), clusterId: Type.String() }),
      body: Type.Object({ totalGpus: Int32({ minimum: 0 }) }),
      response: { 200: Type.Object({ productId: Type.String(), clusterId: Type.String(), totalGpus: Type.Integer() }), ...errors(400, 401, 404, 409) },
    },
  }, async (req) => {
    await setOperatorInventory(s.compute, req.params.productId, req.params.clusterId, req.body.totalGpus);
    return { ...req.params, totalGpus: req.body.totalGpus };
  });
}
