import { Type } from 'typebox';
import { listNetworkStorages } from '../../../domain/compute/network-storage.ts';
import { errors, Int32, KeyBearer } from '../../schemas.ts';
import { MAX_PAGE_NUM, MAX_PAGE_SIZE } from '../../../domain/compute/templates.ts';
import { principalOf, type App } from '../../types.ts';
import { GPU_BASE } from './schemas.ts';
import type { Ctx } from '../../../domain/context.ts';

export default function listNetworkStoragesRoute(app: App, s: { ctx: Ctx }): void {
  app.get(`${GPU_BASE}/networkstorages/list`, {
    config: { family: 'gpu', auth: { kind: 'key', capability: 'readCompute' } },
    schema: {
      tags: ['gpu-storage'], summary: 'List network storages, newest first (price: units per GB-month; storage is not billed yet)', security: KeyBearer,
      querystring: Type.Object({
        pageNo: Type.Optional(Int32({ minimum: 0, maximum: MAX_PAGE_NUM, description: '1-based; missing or 0 reads as 1' })),
        pageSize: Type.Optional(Int32({ minimum: 0, maximum: MAX_PAGE_SIZE, description: 'missing or 0 reads as 10' })),
        storageId: Type.Optional(Type.String({ description: 'exact' })),
        storageName: Type.Optional(Type.String({ description: 'fuzzy, 0-255 characters' })),
      }),
      response: {
        200: Type.Object({
          data: Type.Array(Type.Object({
            storageId: Type.String(), storageName: Type.String(), storageSize: Type.Integer(), clusterId: Type.String(),
            clusterName: Type.String(), price: Type.String({ description: 'units (1/10000 USD) per GB-month' }), createdAt: Type.String(),
          })),
          total: Type.Integer(),
        }),
        ...errors(400, 401, 403),
      },
    },
  }, async (req) => listNetworkStorages(s.ctx, principalOf(req).teamId, req.query));
}
