import { Type } from 'typebox';
import { publishTemplateAsOperator } from '../../../domain/compute/templates.ts';
import { errors, Int32, OperatorBearer } from '../../schemas.ts';
import type { App } from '../../types.ts';
import { TemplateBody } from './schemas.ts';
import type { Compute } from '../../../domain/compute/compute.ts';

export default function adminPublishTemplateRoute(app: App, s: { compute: Compute }): void {
  app.put('/admin/v1/gpu/templates/:id', {
    config: { family: 'operator', auth: { kind: 'operator' } },
    schema: {
      tags: ['admin'], summary: 'Publish (create or replace) an official or community template, shown to every team; publishing a retired one puts it back', security: OperatorBearer,
      params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 68, description: 'tpl_ and 1-64 of a-z 0-9 _' }) }),
      body: Type.Object({
        template: TemplateBody,
        tools: Type.Optional(Type.Array(Type.Object({ name: Type.String({ maxLength: 255 }), describe: Type.String({ maxLength: 1024 }), port: Int32({ minimum: 1, maximum: 65535 }), type: Type.String({ maxLength: 32 }) }), { maxItems: 20 })),
        recommendCards: Type.Optional(Type.Array(Type.Object({ gpuSpecId: Type.String({ maxLength: 255 }), cardNum: Type.String({ maxLength: 16 }) }), { maxItems: 20 })),
      }),
      response: { 200: Type.Object({ templateId: Type.String() }), ...errors(400, 401) },
    },
  }, async (req) => {
    const { template, tools, recommendCards } = req.body;
    await publishTemplateAsOperator(s.compute, req.params.id, { ...template, ...(tools ? { tools } : {}), ...(recommendCards ? { recommendCards } : {}) });
    return { templateId: req.params.id };
  });
}
