import { Type } from 'typebox';
import { deleteRegistryAuth } from '../../../domain/compute/registry-auths.ts';
import { errors, KeyBearer } from '../../schemas.ts';
import { principalOf, type App } from '../../types.ts';
import { GPU_BASE } from './schemas.ts';
import type { Ctx } from '../../../domain/context.ts';

export default function deleteRegistryAuthRoute(app: App, s: { ctx: Ctx }): void {
  app.post(`${GPU_BASE}/repository/auth/delete`, {
    config: { family: 'gpu', auth: { kind: 'key', capability: 'changeCompute' } },
    schema: {
      tags: ['gpu-registry'], summary: 'Delete a registry credential', security: KeyBearer,
      body: Type.Object({ id: Type.String({ minLength: 1 }) }),
      response: { 200: Type.Object({}), ...errors(400, 401, 403) },
    },
  }, async (req) => {
    await deleteRegistryAuth(s.ctx, principalOf(req).teamId, req.body.id);
    return {};
  });
}
