import { Type } from 'typebox';
import { listCatalogueWithHealth, type Catalogue } from '../../../domain/models/catalogue.ts';
import { errors, OperatorBearer } from '../../schemas.ts';
import type { App } from '../../types.ts';
import { ModelAdminView, UpstreamHealthSchema } from './model-schema.ts';

export default function listModelsRoute(app: App, s: { catalogue: Catalogue }): void {
  app.get('/admin/v1/models', {
    config: { family: 'operator', auth: { kind: 'operator' } },
    schema: {
      tags: ['admin'], summary: 'List the LLM model catalogue, each model with its upstream\'s health', security: OperatorBearer,
      querystring: Type.Object({ retired: Type.Optional(Type.Boolean({ description: 'true: retired models too (left out by default)' })) }),
      response: { 200: Type.Object({ models: Type.Array(Type.Intersect([ModelAdminView, Type.Object({ upstreamHealth: UpstreamHealthSchema })])) }), ...errors(401) },
    },
  }, async (req) => ({ models: await listCatalogueWithHealth(s.catalogue, { retired: req.query.retired }) }));
}
