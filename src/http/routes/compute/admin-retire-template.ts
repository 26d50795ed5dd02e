import { Type } from 'typebox';
import { retireTemplate } from '../../../domain/compute/templates.ts';
import { Empty, errors, OperatorBearer } from '../../schemas.ts';
import type { App } from '../../types.ts';
import type { Compute } from '../../../domain/compute/compute.ts';

export default function adminRetireTemplateRoute(app: App, s: { compute: Compute }): void {
  app.post('/admin/v1/gpu/templates/:id/retire', {
    config: { family: 'operator', auth: { kind: 'operator' } },
    schema: {
      tags: ['admin'], summary: 'Retire a published template: it leaves every list and creates refuse it; instances made from it keep running as they are', security: OperatorBearer,
      params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 68 }) }),
      response: { 200: Empty, ...errors(400, 401, 404) },
    },
  }, async (req) => {
    await retireTemplate(s.compute, req.params.id);
    return {};
  });
}
