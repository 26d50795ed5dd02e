import { Type } from 'typebox';
import { upsertCluster } from '../../../domain/compute/catalogue.ts';
import { errors, OperatorBearer, PriceInput } from '../../schemas.ts';
import type { App } from '../../types.ts';
import type { Ctx } from '../../../domain/context.ts';

export default function gpuUpsertClusterRoute(app: App, s: { ctx: Ctx }): void {
  app.post('/admin/v1/gpu/clusters', {
    config: { family: 'operator', auth: { kind: 'operator' } },
    schema: {
      tags: ['admin'], summary: 'Create or replace a GPU cluster', security: OperatorBearer,
      body: Type.Object({
        id: Type.String(), name: Type.String(), region: Type.Optional(Type.String()),
        supportNetworkStorage: Type.Optional(Type.Boolean()), supportInstanceNetwork: Type.Optional(Type.Boolean()),
        storagePrice: Type.Optional(Type.Unsafe<number | string>({
          ...PriceInput, description: 'network storage price in units (1/10000 USD) per GB-month, shown to tenants (storage is not billed yet); default 0',
        })),
      }),
      response: { 200: Type.Object({ id: Type.String() }), ...errors(400, 401) },
    },
  }, async (req) => {
    const { storagePrice, ...c } = req.body;
    await upsertCluster(s.ctx, { ...c, ...(storagePrice !== undefined ? { storagePrice: BigInt(storagePrice) } : {}) });
    return { id: req.body.id };
  });
}
