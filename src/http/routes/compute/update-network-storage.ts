import { Type } from 'typebox';
import { updateNetworkStorage } from '../../../domain/compute/network-storage.ts';
import { errors, KeyBearer } from '../../schemas.ts';
import { principalOf, type App } from '../../types.ts';
import { GPU_BASE, StorageGb } from './schemas.ts';
import type { Ctx } from '../../../domain/context.ts';

export default function updateNetworkStorageRoute(app: App, s: { ctx: Ctx }): void {
  app.post(`${GPU_BASE}/networkstorage/update`, {
    config: { family: 'gpu', auth: { kind: 'key', capability: 'changeCompute' } },
    schema: {
      tags: ['gpu-storage'], summary: 'Rename or grow a network storage', security: KeyBearer,
      body: Type.Object({
        storageId: Type.String({ minLength: 1 }), storageName: Type.Optional(Type.String({ description: '1-255 characters' })),
        storageSize: Type.Optional(Type.Union([StorageGb, Type.String()], { description: 'GB, only grows; an integer or a string of digits' })),
      }),
      response: { 200: Type.Object({}), ...errors(400, 401, 403) },
    },
  }, async (req) => {
    await updateNetworkStorage(s.ctx, principalOf(req).teamId, req.body.storageId, req.body);
    return {};
  });
}
