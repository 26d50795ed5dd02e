import { Type } from 'typebox';
import { listNetworkStorages } from '../../../domain/compute/network-storage.ts';
import { errors, KeyBearer } from '../../schemas.ts';
import { principalOf, type App, type Services } from '../../types.ts';
import { GPU_BASE } from './schemas.ts';

export default function listNetworkStoragesRoute(app: App, s: Services): void {
  app.get(`${GPU_BASE}/networkstorages/list`, {
    config: { auth: { kind: 'key', capability: 'readCompute' } },
    schema: {
      tags: ['gpu-storage'], summary: 'List network storages (pageNo 1-based, 0 reads as 1)', security: KeyBearer,
      querystring: Type.Object({ pageNo: Type.Optional(Type.Integer({ minimum: 0 })), pageSize: Type.Optional(Type.Integer({ minimum: 0 })) }),
      response: {
        200: Type.Object({
          data: Type.Array(Type.Object({
            storageId: Type.String(), storageName: Type.String(), storageSize: Type.Integer(), clusterId: Type.String(),
            clusterName: Type.String(), createdAt: Type.String(),
          })),
          total: Type.Integer(),
        }),
        ...errors(400, 401, 403),
      },
    },
  }, async (req) => listNetworkStorages(s.ctx, principalOf(req).teamId, req.query.pageSize, req.query.pageNo));
}
