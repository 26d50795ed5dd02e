import { Type } from 'typebox';
import { saveRegistryAuth } from '../../../domain/compute/registry-auths.ts';
import { errors, KeyBearer } from '../../schemas.ts';
import { principalOf, type App } from '../../types.ts';
import { GPU_BASE } from './schemas.ts';
import type { Compute } from '../../../domain/compute/compute.ts';

export default function saveRegistryAuthRoute(app: App, s: { compute: Compute }): void {
  app.post(`${GPU_BASE}/repository/auth/save`, {
    config: { family: 'gpu', auth: { kind: 'key', capability: 'changeCompute' } },
    schema: {
      tags: ['gpu-registry'], summary: 'Create (or, with id, replace) a registry credential; stored with AES-256-GCM', security: KeyBearer,
      body: Type.Object({ id: Type.Optional(Type.String()), name: Type.String(), username: Type.String(), password: Type.String() }),
      response: { 200: Type.Object({ id: Type.String() }), ...errors(400, 401, 403) },
    },
  }, async (req) => ({ id: await saveRegistryAuth(s.compute, principalOf(req).teamId, req.body) }));
}
