import { Type } from 'typebox';
import { listClustersForTenant } from '../../../domain/compute/catalogue.ts';
import { errors, KeyBearer } from '../../schemas.ts';
import type { App } from '../../types.ts';
import { GPU_BASE } from './schemas.ts';
import type { Ctx } from '../../../domain/context.ts';

export default function listClustersRoute(app: App, s: { ctx: Ctx }): void {
  app.get(`${GPU_BASE}/clusters`, {
    config: { family: 'gpu', auth: { kind: 'key', capability: 'readCompute' } },
    schema: {
      tags: ['gpu-catalogue'], summary: 'List clusters', security: KeyBearer,
      response: {
        200: Type.Object({
          data: Type.Array(Type.Object({
            id: Type.String(), name: Type.String(), availableGpuType: Type.Array(Type.String()),
            supportNetworkStorage: Type.Boolean(), supportInstanceNetwork: Type.Boolean(),
          })),
        }),
        ...errors(401, 403),
      },
    },
  }, async () => ({ data: await listClustersForTenant(s.ctx) }));
}
