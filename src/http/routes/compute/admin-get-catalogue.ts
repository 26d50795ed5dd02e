import { Type } from 'typebox';
import { operatorCatalogue } from '../../../domain/compute/catalogue.ts';
import { errors, OperatorBearer } from '../../schemas.ts';
import type { App } from '../../types.ts';
import type { Ctx } from '../../../domain/context.ts';

export default function gpuGetCatalogueRoute(app: App, s: { ctx: Ctx }): void {
  app.get('/admin/v1/gpu/catalogue', {
    config: { family: 'operator', auth: { kind: 'operator' } },
    schema: {
      tags: ['admin'], summary: 'Clusters, products (with prices) and inventory with GPUs in use', security: OperatorBearer,
      response: { 200: Type.Object({}, { additionalProperties: true }), ...errors(401) },
    },
  }, async () => operatorCatalogue(s.ctx));
}
