import { Type } from 'typebox';
import { upgradeInstance } from '../../../domain/compute/instances.ts';
import { errors, KeyBearer } from '../../schemas.ts';
import { principalOf, type App, type Services } from '../../types.ts';
import { EnvPair, GPU_BASE } from './schemas.ts';

export default function upgradeInstanceRoute(app: App, s: Services): void {
  app.post(`${GPU_BASE}/gpu/instance/upgrade`, {
    config: { auth: { kind: 'key', capability: 'changeCompute' } },
    schema: {
      tags: ['gpu-instances'], summary: 'Recreate the instance with a new image, envs and command (toReset → resetting → running)', security: KeyBearer,
      body: Type.Object({
        instanceId: Type.String({ minLength: 1 }),
        imageUrl: Type.String(),
        imageAuthId: Type.Optional(Type.String()),
        envs: Type.Optional(Type.Array(EnvPair)),
        command: Type.Optional(Type.String()),
        save: Type.Optional(Type.Boolean()),
        networkVolume: Type.Optional(Type.Unknown()),
      }),
      response: { 200: Type.Object({}), ...errors(400, 401, 403) },
    },
  }, async (req) => {
    const b = req.body;
    await upgradeInstance(s.compute, principalOf(req), b.instanceId, { imageUrl: b.imageUrl, imageAuthId: b.imageAuthId || undefined, envs: b.envs, command: b.command });
    return {};
  });
}
