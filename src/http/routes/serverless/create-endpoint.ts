import { Type } from 'typebox';
import { createEndpoint } from '../../../domain/serverless/endpoints.ts';
import { errors, KeyBearer } from '../../schemas.ts';
import { principalOf, type App } from '../../types.ts';
import { GPU_BASE } from '../compute/schemas.ts';
import { CreateBody } from './schemas.ts';
import type { Serverless } from '../../../domain/serverless/service.ts';

export default function createEndpointRoute(app: App, s: { serverless: Serverless }): void {
  app.post(`${GPU_BASE}/endpoint/create`, {
    config: { family: 'gpu', auth: { kind: 'key', capability: 'changeCompute' } },
    schema: {
      tags: ['serverless'], summary: 'Create a serverless endpoint (its first workers must be affordable for an hour)', security: KeyBearer,
      body: CreateBody,
      response: { 200: Type.Object({ id: Type.String() }), ...errors(400, 401, 403) },
    },
  }, async (req) => ({ id: await createEndpoint(s.serverless, principalOf(req), req.body.endpoint) }));
}
