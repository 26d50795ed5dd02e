import { Type } from 'typebox';
import { deleteEndpoint } from '../../../domain/serverless/endpoints.ts';
import { errors, KeyBearer } from '../../schemas.ts';
import { principalOf, type App } from '../../types.ts';
import { GPU_BASE } from '../compute/schemas.ts';
import type { Serverless } from '../../../domain/serverless/service.ts';

export default function deleteEndpointRoute(app: App, s: { serverless: Serverless }): void {
  app.post(`${GPU_BASE}/endpoint/delete`, {
    config: { family: 'gpu', auth: { kind: 'key', capability: 'changeCompute' } },
    schema: {
      tags: ['serverless'], summary: 'Delete a serverless endpoint: terminating at once, gone when its workers are', security: KeyBearer,
      body: Type.Object({ name: Type.String({ minLength: 1, description: 'the endpoint id (the field is called name)' }) }),
      response: { 200: Type.Object({}), ...errors(400, 401, 403) },
    },
  }, async (req) => {
    await deleteEndpoint(s.serverless, principalOf(req), req.body.name);
    return {};
  });
}
