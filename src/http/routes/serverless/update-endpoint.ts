import { Type } from 'typebox';
import { updateEndpoint } from '../../../domain/serverless/endpoints.ts';
import { errors, KeyBearer } from '../../schemas.ts';
import { principalOf, type App } from '../../types.ts';
import { GPU_BASE } from '../compute/schemas.ts';
import { UpdateBody } from './schemas.ts';
import type { Serverless } from '../../../domain/serverless/service.ts';

export default function updateEndpointRoute(app: App, s: { serverless: Serverless }): void {
  app.post(`${GPU_BASE}/endpoint/update`, {
    config: { family: 'gpu', auth: { kind: 'key', capability: 'changeCompute' } },
    schema: {
      tags: ['serverless'], summary: 'Replace a serverless endpoint\'s configuration (every field given in full); workers roll over', security: KeyBearer,
      body: UpdateBody,
      response: { 200: Type.Object({}), ...errors(400, 401, 403) },
    },
  }, async (req) => {
    const { id, ...input } = req.body;
    await updateEndpoint(s.serverless, principalOf(req), id, input);
    return {};
  });
}
