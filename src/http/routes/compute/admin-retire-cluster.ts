import { Type } from 'typebox';
import { retireCluster } from '../../../domain/compute/catalogue.ts';
import { Empty, errors, OperatorBearer } from '../../schemas.ts';
import type { App } from '../../types.ts';
import type { Ctx } from '../../../domain/context.ts';

export default function adminRetireClusterRoute(app: App, s: { ctx: Ctx }): void {
  app.post('/admin/v1/gpu/clusters/:id/retire', {
    config: { family: 'operator', auth: { kind: 'operator' } },
    schema: {
      tags: ['admin'], summary: 'Retire a GPU cluster: it leaves the tenants\' lists and takes no new instance, network storage or endpoint; what runs there keeps running. Saving it again puts it back', security: OperatorBearer,
      params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) }),
      response: { 200: Empty, ...errors(400, 401, 404) },
    },
  }, async (req) => {
    await retireCluster(s.ctx, req.params.id);
    return {};
  });
}
