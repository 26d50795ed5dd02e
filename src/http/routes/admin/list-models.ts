import { Type } from 'typebox';
import { listCatalogue } from '../../../domain/models/models.ts';
import { errors, OperatorBearer } from '../../schemas.ts';
import type { App } from '../../types.ts';
import { ModelAdminView } from './model-schema.ts';
import type { Ctx } from '../../../domain/context.ts';

export default function listModelsRoute(app: App, s: { ctx: Ctx }): void {
  app.get('/admin/v1/models', {
    config: { family: 'operator', auth: { kind: 'operator' } },
    schema: {
      tags: ['admin'], summary: 'List the LLM model catalogue', security: OperatorBearer,
      response: { 200: Type.Object({ models: Type.Array(ModelAdminView) }), ...errors(401) },
    },
  }, async () => ({ models: await listCatalogue(s.ctx) }));
}
