import { Type } from 'typebox';
import { deleteNetworkStorage } from '../../../domain/compute/network-storage.ts';
import { errors, KeyBearer } from '../../schemas.ts';
import { principalOf, type App } from '../../types.ts';
import { GPU_BASE } from './schemas.ts';
import type { Ctx } from '../../../domain/context.ts';

export default function deleteNetworkStorageRoute(app: App, s: { ctx: Ctx }): void {
  app.post(`${GPU_BASE}/networkstorage/delete`, {
    config: { family: 'gpu', auth: { kind: 'key', capability: 'changeCompute' } },
    schema: {
      tags: ['gpu-storage'], summary: 'Delete a network storage no instance mounts', security: KeyBearer,
      body: Type.Object({ storageId: Type.String({ minLength: 1 }) }),
      response: { 200: Type.Object({}), ...errors(400, 401, 403) },
    },
  }, async (req) => {
    await deleteNetworkStorage(s.ctx, principalOf(req).teamId, req.body.storageId);
    return {};
  });
}
