import { Type } from 'typebox';
import { migrateInstance } from '../../../domain/compute/instances.ts';
import { errors, OperatorBearer } from '../../schemas.ts';
import type { App } from '../../types.ts';
import type { Compute } from '../../../domain/compute/compute.ts';

export default function gpuMigrateInstanceRoute(app: App, s: { compute: Compute }): void {
  app.post('/admin/v1/gpu/instances/:instanceId/migrate', {
    config: { family: 'operator', auth: { kind: 'operator' } },
    schema: {
      tags: ['admin'], summary: 'Move a running instance to another cluster (migrating → running)', security: OperatorBearer,
      params: Type.Object({ instanceId: Type.String() }),
      body: Type.Object({ clusterId: Type.String({ minLength: 1 }) }),
      response: { 200: Type.Object({}), ...errors(400, 401) },
    },
  }, async (req) => {
    await migrateInstance(s.compute, req.params.instanceId, req.body.clusterId);
    return {};
  });
}
