import { getUpstreamHealth, type Catalogue } from '../../../domain/models/catalogue.ts';
import { errors, OperatorBearer } from '../../schemas.ts';
import type { App } from '../../types.ts';
import { ModelIdParams, UpstreamHealthSchema } from './model-schema.ts';

export default function getModelHealthRoute(app: App, s: { catalogue: Catalogue }): void {
  app.get('/admin/v1/models/:id/health', {
    config: { family: 'operator', auth: { kind: 'operator' } },
    schema: {
      tags: ['admin'], summary: 'How a model\'s upstream has been answering: failing (with the last error and how many calls in a row) or ok', security: OperatorBearer,
      params: ModelIdParams,
      response: { 200: UpstreamHealthSchema, ...errors(400, 401, 404) },
    },
  }, async (req) => getUpstreamHealth(s.catalogue, req.params.id));
}
