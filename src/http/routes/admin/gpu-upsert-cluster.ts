import { Type } from 'typebox';
import { upsertCluster } from '../../../domain/compute/catalogue.ts';
import { errors, OperatorBearer } from '../../schemas.ts';
import type { App, Services } from '../../types.ts';

export default function gpuUpsertClusterRoute(app: App, s: Services): void {
  app.post('/admin/v1/gpu/clusters', {
    config: { auth: { kind: 'operator' } },
    schema: {
      tags: ['admin'], summary: 'Create or replace a GPU cluster', security: OperatorBearer,
      body: Type.Object({
        id: Type.String(), name: Type.String(), region: Type.Optional(Type.String()),
        supportNetworkStorage: Type.Optional(Type.Boolean()), supportInstanceNetwork: Type.Optional(Type.Boolean()),
      }),
      response: { 200: Type.Object({ id: Type.String() }), ...errors(400, 401) },
    },
  }, async (req) => {
    await upsertCluster(s.ctx, req.body);
    return { id: req.body.id };
  });
}
