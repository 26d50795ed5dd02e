import { Type } from 'typebox';
import { createTemplate } from '../../../domain/compute/templates.ts';
import { errors, KeyBearer } from '../../schemas.ts';
import { principalOf, type App } from '../../types.ts';
import { GPU_BASE, TemplateBody } from './schemas.ts';
import type { Compute } from '../../../domain/compute/compute.ts';

export default function createTemplateRoute(app: App, s: { compute: Compute }): void {
  app.post(`${GPU_BASE}/template/create`, {
    config: { family: 'gpu', auth: { kind: 'key', capability: 'changeCompute' } },
    schema: {
      tags: ['gpu-templates'], summary: 'Create a private template', security: KeyBearer,
      body: Type.Object({ template: TemplateBody }),
      response: { 200: Type.Object({ templateId: Type.String() }), ...errors(400, 401, 403) },
    },
  }, async (req) => ({ templateId: await createTemplate(s.compute, principalOf(req).teamId, req.body.template) }));
}
