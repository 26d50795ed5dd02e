import { Type } from 'typebox';
import { createNetworkStorage } from '../../../domain/compute/network-storage.ts';
import { errors, KeyBearer } from '../../schemas.ts';
import { principalOf, type App } from '../../types.ts';
import { GPU_BASE, StorageGb } from './schemas.ts';
import type { Ctx } from '../../../domain/context.ts';

export default function createNetworkStorageRoute(app: App, s: { ctx: Ctx }): void {
  app.post(`${GPU_BASE}/networkstorage/create`, {
    config: { family: 'gpu', auth: { kind: 'key', capability: 'changeCompute' } },
    schema: {
      tags: ['gpu-storage'], summary: 'Create a network storage in a cluster (size in GB)', security: KeyBearer,
      body: Type.Object({ storageName: Type.String(), clusterId: Type.String({ minLength: 1 }), storageSize: StorageGb }),
      response: { 200: Type.Object({ storageId: Type.String() }), ...errors(400, 401, 403) },
    },
  }, async (req) => ({ storageId: await createNetworkStorage(s.ctx, principalOf(req).teamId, req.body) }));
}
