import { Type } from 'typebox';
import { editInstance } from '../../../domain/compute/instances.ts';
import { errors, Int32, KeyBearer } from '../../schemas.ts';
import { principalOf, type App } from '../../types.ts';
import { GPU_BASE } from './schemas.ts';
import type { Compute } from '../../../domain/compute/compute.ts';

export default function editInstanceRoute(app: App, s: { compute: Compute }): void {
  app.post(`${GPU_BASE}/gpu/instance/edit`, {
    config: { family: 'gpu', auth: { kind: 'key', capability: 'changeCompute' } },
    schema: {
      tags: ['gpu-instances'], summary: 'Change ports or grow the root disk (running or exited)', security: KeyBearer,
      body: Type.Object({
        instanceId: Type.String({ minLength: 1 }),
        ports: Type.Optional(Type.String()),
        expandRootDisk: Type.Optional(Int32({ minimum: 1, description: 'new root disk size, GB (larger than now, at most the product\'s maxRootFS)' })),
      }),
      response: { 200: Type.Object({}), ...errors(400, 401, 403) },
    },
  }, async (req) => {
    await editInstance(s.compute, principalOf(req), req.body.instanceId, { ports: req.body.ports, expandRootDisk: req.body.expandRootDisk });
    return {};
  });
}
