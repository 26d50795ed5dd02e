import { modelAdminView } from '../../../domain/models/models.ts';
import { clearUpstreamKey, type Catalogue } from '../../../domain/models/catalogue.ts';
import { errors, OperatorBearer } from '../../schemas.ts';
import type { App } from '../../types.ts';
import { ModelAdminView, ModelIdParams } from './model-schema.ts';

export default function clearModelUpstreamKeyRoute(app: App, s: { catalogue: Catalogue }): void {
  app.delete('/admin/v1/models/:id/upstream-key', {
    config: { family: 'operator', auth: { kind: 'operator' } },
    schema: {
      tags: ['admin'], summary: 'Remove a model\'s stored upstream key (its servers without apiKeyEnv are then called without one)', security: OperatorBearer,
      params: ModelIdParams,
      response: { 200: ModelAdminView, ...errors(400, 401, 404) },
    },
  }, async (req) => modelAdminView(await clearUpstreamKey(s.catalogue, req.params.id)));
}
