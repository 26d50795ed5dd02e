import { Type } from 'typebox';
import { listRegistryAuths } from '../../../domain/compute/registry-auths.ts';
import { errors, KeyBearer } from '../../schemas.ts';
import { principalOf, type App } from '../../types.ts';
import { GPU_BASE } from './schemas.ts';
import type { Ctx } from '../../../domain/context.ts';

export default function listRegistryAuthsRoute(app: App, s: { ctx: Ctx }): void {
  app.get(`${GPU_BASE}/repository/auths`, {
    config: { family: 'gpu', auth: { kind: 'key', capability: 'readCompute' } },
    schema: {
      tags: ['gpu-registry'], summary: 'List registry credentials (passwords are never returned)', security: KeyBearer,
      response: {
        200: Type.Object({ data: Type.Array(Type.Object({ id: Type.String(), name: Type.String(), username: Type.String(), createdAt: Type.String() })) }),
        ...errors(401, 403),
      },
    },
  }, async (req) => ({ data: await listRegistryAuths(s.ctx, principalOf(req).teamId) }));
}
