import { Type } from 'typebox';
import { MAX_GPUS_PER_INSTANCE, MAX_TERM_MONTHS, createInstance } from '../../../domain/compute/instances.ts';
import { errors, Int32, KeyBearer } from '../../schemas.ts';
import { principalOf, type App } from '../../types.ts';
import { EnvAlias, Envs, GPU_BASE } from './schemas.ts';
import type { Compute } from '../../../domain/compute/compute.ts';

export default function createInstanceRoute(app: App, s: { compute: Compute }): void {
  app.post(`${GPU_BASE}/gpu/instance/create`, {
    config: { family: 'gpu', auth: { kind: 'key', capability: 'changeCompute' } },
    schema: {
      tags: ['gpu-instances'], summary: 'Create an instance from an image or a template (templateId)', security: KeyBearer,
      body: Type.Object({
        name: Type.Optional(Type.String()),
        productId: Type.String({ minLength: 1 }),
        gpuNum: Int32({ minimum: 1, maximum: MAX_GPUS_PER_INSTANCE }),
        rootfsSize: Type.Optional(Int32({ minimum: 1, description: 'GB, within the product\'s minRootFS-maxRootFS' })),
        imageUrl: Type.Optional(Type.String()),
        imageAuth: Type.Optional(Type.String({ description: '<username>:<password>; stored sealed, never returned' })),
        imageAuthId: Type.Optional(Type.String()),
        templateId: Type.Optional(Type.String()),
        ports: Type.Optional(Type.String({ description: 'e.g. "80/http,3306/tcp"' })),
        envs: Type.Optional(Envs),
        env: Type.Optional(EnvAlias),
        tools: Type.Optional(Type.Array(Type.Unknown())),
        command: Type.Optional(Type.String()),
        entrypoint: Type.Optional(Type.String()),
        clusterId: Type.Optional(Type.String()),
        networkStorages: Type.Optional(Type.Array(Type.Object({ Id: Type.String(), mountPoint: Type.String() }))),
        kind: Type.String(),
        month: Type.Optional(Int32({ minimum: 1, maximum: MAX_TERM_MONTHS, description: 'months of a monthly instance' })),
        billingMode: Type.Optional(Type.String()),
      }),
      response: { 200: Type.Object({ id: Type.String() }), ...errors(400, 401, 403) },
    },
  }, async (req) => ({ id: await createInstance(s.compute, principalOf(req), req.body) }));
}
