import { Type } from 'typebox';
import { requireVisibleTemplate, templateView } from '../../../domain/compute/templates.ts';
import { errors, KeyBearer } from '../../schemas.ts';
import { principalOf, type App, type Services } from '../../types.ts';
import { GPU_BASE, TemplateView } from './schemas.ts';

export default function getTemplateRoute(app: App, s: Pick<Services, 'ctx'>): void {
  app.get(`${GPU_BASE}/template`, {
    config: { family: 'gpu', auth: { kind: 'key', capability: 'readCompute' } },
    schema: {
      tags: ['gpu-templates'], summary: 'Get a template', security: KeyBearer,
      querystring: Type.Object({ templateId: Type.String({ minLength: 1 }) }),
      response: { 200: Type.Object({ template: TemplateView }), ...errors(400, 401, 403) },
    },
  }, async (req) => ({ template: templateView(await requireVisibleTemplate(s.ctx, principalOf(req).teamId, req.query.templateId)) }));
}
