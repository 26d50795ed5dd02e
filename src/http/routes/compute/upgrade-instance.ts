import { Type } from 'typebox';
import { upgradeInstance } from '../../../domain/compute/instances.ts';
import { errors, KeyBearer } from '../../schemas.ts';
import { principalOf, type App } from '../../types.ts';
import { Envs, GPU_BASE } from './schemas.ts';
import type { Compute } from '../../../domain/compute/compute.ts';

export default function upgradeInstanceRoute(app: App, s: { compute: Compute }): void {
  app.post(`${GPU_BASE}/gpu/instance/upgrade`, {
    config: { family: 'gpu', auth: { kind: 'key', capability: 'changeCompute' } },
    schema: {
      tags: ['gpu-instances'], summary: 'Recreate the instance with a new image, envs, command and network volumes (toReset → resetting → running); every field in full', security: KeyBearer,
      body: Type.Object({
        instanceId: Type.String({ minLength: 1 }),
        imageUrl: Type.String({ description: '1-500 characters' }),
        imageAuthId: Type.String({ description: 'registry credential id; empty for a public image' }),
        envs: Envs,
        command: Type.String({ description: '0-2047 characters; empty: the image\'s' }),
        entrypoint: Type.Optional(Type.String({ description: '0-2047 characters; kept when missing' })),
        save: Type.Boolean({ description: 'keep the previous root disk\'s data: accepted, not acted on (no driver keeps a root disk across recreation; network storage persists)' }),
        networkVolume: Type.Object({
          volumeMounts: Type.Array(Type.Object({
            type: Type.String({ description: 'network' }), id: Type.String({ description: 'network storage id, in the instance\'s cluster' }),
            mountPath: Type.String({ description: 'absolute path, 1-255 characters' }),
          }), { description: 'the instance\'s network storages from now on (at most 30); [] unmounts them all' }),
        }),
      }),
      response: { 200: Type.Object({}), ...errors(400, 401, 403) },
    },
  }, async (req) => {
    const { instanceId, ...u } = req.body;
    await upgradeInstance(s.compute, principalOf(req), instanceId, u);
    return {};
  });
}
