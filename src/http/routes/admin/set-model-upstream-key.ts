import { Type } from 'typebox';
import { modelAdminView } from '../../../domain/models/models.ts';
import { setUpstreamKey, type Catalogue } from '../../../domain/models/catalogue.ts';
import { errors, OperatorBearer } from '../../schemas.ts';
import type { App } from '../../types.ts';
import { ModelAdminView, ModelIdParams } from './model-schema.ts';

export default function setModelUpstreamKeyRoute(app: App, s: { catalogue: Catalogue }): void {
  app.put('/admin/v1/models/:id/upstream-key', {
    config: { family: 'operator', auth: { kind: 'operator' } },
    schema: {
      tags: ['admin'], summary: 'Set or rotate a model\'s upstream key: stored sealed (AES-256-GCM), never returned; used from the next call on every replica', security: OperatorBearer,
      params: ModelIdParams,
      body: Type.Object({ apiKey: Type.String({ minLength: 1, maxLength: 4096, description: 'sent as `Authorization: Bearer <apiKey>` to the model\'s HTTP servers that name no apiKeyEnv' }) }),
      response: { 200: ModelAdminView, ...errors(400, 401, 404) },
    },
  }, async (req) => modelAdminView(await setUpstreamKey(s.catalogue, req.params.id, req.body.apiKey)));
}
