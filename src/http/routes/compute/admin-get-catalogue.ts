import { Type } from 'typebox';
import { operatorCatalogue } from '../../../domain/compute/catalogue.ts';
import { errors, OperatorBearer } from '../../schemas.ts';
import type { App, Services } from '../../types.ts';

export default function gpuGetCatalogueRoute(app: App, s: Pick<Services, 'ctx'>): void {
  app.get('/admin/v1/gpu/catalogue', {
    config: { family: 'operator', auth: { kind: 'operator' } },
    schema: {
      tags: ['admin'], summary: 'Clusters, products (with prices) and inventory with GPUs in use', security: OperatorBearer,
      response: { 200: Type.Object({}, { additionalProperties: true }), ...errors(401) },
    },
  }, async () => operatorCatalogue(s.ctx));
}
