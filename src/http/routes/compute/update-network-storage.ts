import { Type } from 'typebox';
import { updateNetworkStorage } from '../../../domain/compute/network-storage.ts';
import { errors, KeyBearer } from '../../schemas.ts';
import { principalOf, type App, type Services } from '../../types.ts';
import { GPU_BASE } from './schemas.ts';

export default function updateNetworkStorageRoute(app: App, s: Services): void {
  app.post(`${GPU_BASE}/networkstorage/update`, {
    config: { auth: { kind: 'key', capability: 'changeCompute' } },
    schema: {
      tags: ['gpu-storage'], summary: 'Rename or grow a network storage', security: KeyBearer,
      body: Type.Object({ storageId: Type.String({ minLength: 1 }), storageName: Type.Optional(Type.String()), storageSize: Type.Optional(Type.Integer()) }),
      response: { 200: Type.Object({}), ...errors(400, 401, 403) },
    },
  }, async (req) => {
    await updateNetworkStorage(s.ctx, principalOf(req).teamId, req.body.storageId, req.body);
    return {};
  });
}
