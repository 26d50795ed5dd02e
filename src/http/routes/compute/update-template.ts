import { Type } from 'typebox';
import { updateTemplate } from '../../../domain/compute/templates.ts';
import { errors, KeyBearer } from '../../schemas.ts';
import { principalOf, type App } from '../../types.ts';
import { GPU_BASE, TemplateBody } from './schemas.ts';
import type { Compute } from '../../../domain/compute/compute.ts';

export default function updateTemplateRoute(app: App, s: { compute: Compute }): void {
  app.post(`${GPU_BASE}/template/update`, {
    config: { family: 'gpu', auth: { kind: 'key', capability: 'changeCompute' } },
    schema: {
      tags: ['gpu-templates'], summary: 'Replace a private template (the object carries Id)', security: KeyBearer,
      body: Type.Object({ template: Type.Intersect([TemplateBody, Type.Object({ Id: Type.String({ minLength: 1 }) })]) }),
      response: { 200: Type.Object({ templateId: Type.String() }), ...errors(400, 401, 403) },
    },
  }, async (req) => {
    const { Id, ...t } = req.body.template;
    await updateTemplate(s.compute, principalOf(req).teamId, Id, t);
    return { templateId: Id };
  });
}
