import { Type } from 'typebox';
import { deleteTemplate } from '../../../domain/compute/templates.ts';
import { errors, KeyBearer } from '../../schemas.ts';
import { principalOf, type App } from '../../types.ts';
import { GPU_BASE } from './schemas.ts';
import type { Ctx } from '../../../domain/context.ts';

export default function deleteTemplateRoute(app: App, s: { ctx: Ctx }): void {
  app.post(`${GPU_BASE}/template/delete`, {
    config: { family: 'gpu', auth: { kind: 'key', capability: 'changeCompute' } },
    schema: {
      tags: ['gpu-templates'], summary: 'Delete a private template', security: KeyBearer,
      body: Type.Object({ templateId: Type.String({ minLength: 1 }) }),
      response: { 200: Type.Object({ templateId: Type.String() }), ...errors(400, 401, 403) },
    },
  }, async (req) => {
    await deleteTemplate(s.ctx, principalOf(req).teamId, req.body.templateId);
    return { templateId: req.body.templateId };
  });
}
