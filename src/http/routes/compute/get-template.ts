import { Type } from 'typebox';
import { requireVisibleTemplate, templateView } from '../../../domain/compute/templates.ts';
import { errors, KeyBearer } from '../../schemas.ts';
import { principalOf, type App } from '../../types.ts';
import { GPU_BASE, TemplateView } from './schemas.ts';
import type { Ctx } from '../../../domain/context.ts';

export default function getTemplateRoute(app: App, s: { ctx: Ctx }): void {
  app.get(`${GPU_BASE}/template`, {
    config: { family: 'gpu', auth: { kind: 'key', capability: 'readCompute' } },
    schema: {
      tags: ['gpu-templates'], summary: 'Get a template', security: KeyBearer,
      querystring: Type.Object({ templateId: Type.String({ minLength: 1 }) }),
      response: { 200: Type.Object({ template: TemplateView }), ...errors(400, 401, 403) },
    },
  }, async (req) => ({ template: templateView(await requireVisibleTemplate(s.ctx, principalOf(req).teamId, req.query.templateId)) }));
}
