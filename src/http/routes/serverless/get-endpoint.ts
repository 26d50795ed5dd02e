import { Type } from 'typebox';
import { getEndpoint } from '../../../domain/serverless/endpoints.ts';
import { endpointView } from '../../../domain/serverless/view.ts';
import { errors, KeyBearer } from '../../schemas.ts';
import { principalOf, type App } from '../../types.ts';
import { GPU_BASE } from '../compute/schemas.ts';
import { EndpointView } from './schemas.ts';
import type { Serverless } from '../../../domain/serverless/service.ts';

export default function getEndpointRoute(app: App, s: { serverless: Serverless }): void {
  app.get(`${GPU_BASE}/endpoint`, {
    config: { family: 'gpu', auth: { kind: 'key', capability: 'readCompute' } },
    schema: {
      tags: ['serverless'], summary: 'Get a serverless endpoint with its workers (ports[].port is an integer here)', security: KeyBearer,
      querystring: Type.Object({ id: Type.String({ minLength: 1, description: 'endpoint id' }) }),
      response: { 200: Type.Object({ endpoint: EndpointView }), ...errors(400, 401, 403) },
    },
  }, async (req) => {
    const { row, workers } = await getEndpoint(s.serverless, principalOf(req).teamId, req.query.id);
    return { endpoint: endpointView(s.serverless.settings, row, workers) };
  });
}
