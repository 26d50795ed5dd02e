import { Type } from 'typebox';
import { startInstance } from '../../../domain/compute/instances.ts';
import { errors, KeyBearer } from '../../schemas.ts';
import { principalOf, type App } from '../../types.ts';
import { GPU_BASE, InstanceIdBody } from './schemas.ts';
import type { Compute } from '../../../domain/compute/compute.ts';

export default function startInstanceRoute(app: App, s: { compute: Compute }): void {
  app.post(`${GPU_BASE}/gpu/instance/start`, {
    config: { family: 'gpu', auth: { kind: 'key', capability: 'changeCompute' } },
    schema: {
      tags: ['gpu-instances'], summary: 'Start an instance (allowed states: see the transition table)', security: KeyBearer,
      body: InstanceIdBody,
      response: { 200: Type.Object({}), ...errors(400, 401, 403) },
    },
  }, async (req) => {
    await startInstance(s.compute, principalOf(req), req.body.instanceId);
    return {};
  });
}
