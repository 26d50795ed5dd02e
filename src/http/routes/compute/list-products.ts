import { Type } from 'typebox';
import { listProductsForTenant } from '../../../domain/compute/catalogue.ts';
import { errors, Int32, KeyBearer } from '../../schemas.ts';
import type { App } from '../../types.ts';
import { GPU_BASE } from './schemas.ts';
import type { Ctx } from '../../../domain/context.ts';

export default function listProductsRoute(app: App, s: { ctx: Ctx }): void {
  app.get(`${GPU_BASE}/products`, {
    config: { family: 'gpu', auth: { kind: 'key', capability: 'readCompute' } },
    schema: {
      tags: ['gpu-catalogue'], summary: 'List GPU products (prices: units per GPU-hour; monthlyPrice per GPU for `month` months)', security: KeyBearer,
      querystring: Type.Object({
        clusterId: Type.Optional(Type.String()),
        gpuNum: Type.Optional(Int32({ minimum: 0 })),
        productName: Type.Optional(Type.String()),
        billingMethod: Type.Optional(Type.String()),
      }),
      response: {
        200: Type.Object({
          data: Type.Array(Type.Object({
            id: Type.String(), name: Type.String(), cpuPerGpu: Type.Integer(), memoryPerGpu: Type.Integer(), diskPerGpu: Type.Integer(),
            availableDeploy: Type.Boolean(), minRootFS: Type.Integer(), maxRootFS: Type.Integer(), regions: Type.Array(Type.String()),
            price: Type.String(), monthlyPrice: Type.Array(Type.Object({ price: Type.String(), month: Type.Integer() })),
            billingMethods: Type.Array(Type.String()), spotPrice: Type.String(), inventoryState: Type.String(),
          })),
        }),
        ...errors(400, 401, 403),
      },
    },
  }, async (req) => ({ data: await listProductsForTenant(s.ctx, req.query) }));
}
