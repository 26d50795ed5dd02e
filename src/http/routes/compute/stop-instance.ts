import { Type } from 'typebox';
import { stopInstance } from '../../../domain/compute/instances.ts';
import { errors, KeyBearer } from '../../schemas.ts';
import { principalOf, type App } from '../../types.ts';
import { GPU_BASE, InstanceIdBody } from './schemas.ts';
import type { Compute } from '../../../domain/compute/compute.ts';

export default function stopInstanceRoute(app: App, s: { compute: Compute }): void {
  app.post(`${GPU_BASE}/gpu/instance/stop`, {
    config: { family: 'gpu', auth: { kind: 'key', capability: 'changeCompute' } },
    schema: {
      tags: ['gpu-instances'], summary: 'Stop an instance (allowed states: see the transition table)', security: KeyBearer,
      body: InstanceIdBody,
      response: { 200: Type.Object({}), ...errors(400, 401, 403) },
    },
  }, async (req) => {
    await stopInstance(s.compute, principalOf(req), req.body.instanceId);
    return {};
  });
}
