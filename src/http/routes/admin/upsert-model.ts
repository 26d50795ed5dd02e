import { Type } from 'typebox';
import { modelAdminView, upsertModel } from '../../../domain/models/models.ts';
import { Int32, PriceInput, errors, OperatorBearer } from '../../schemas.ts';
import type { App } from '../../types.ts';
import { ModelAdminView, UpstreamSchema } from './model-schema.ts';
import type { Ctx } from '../../../domain/context.ts';

export default function upsertModelRoute(app: App, s: { ctx: Ctx }): void {
  app.post('/admin/v1/models', {
    config: { family: 'operator', auth: { kind: 'operator' } },
    schema: {
      tags: ['admin'], summary: 'Create or replace an LLM model', security: OperatorBearer,
      body: Type.Object({
        id: Type.String({ minLength: 1, maxLength: 200 }),
        title: Type.String({ minLength: 1, maxLength: 255 }),
        description: Type.Optional(Type.String({ maxLength: 4096 })),
        contextSize: Int32({ minimum: 1, description: 'tokens' }),
        inputTokenPricePerM: PriceInput,
        outputTokenPricePerM: PriceInput,
        batchInputTokenPricePerM: Type.Optional(Type.Union([PriceInput, Type.Null()], { description: 'Batch API price; omitted or null: half the input price' })),
        batchOutputTokenPricePerM: Type.Optional(Type.Union([PriceInput, Type.Null()], { description: 'Batch API price; omitted or null: half the output price' })),
        cachedInputTokenPricePerM: Type.Optional(Type.Union([PriceInput, Type.Null()], { description: 'price of prompt tokens the upstream reports as cached; omitted or null: the input price' })),
        status: Type.String({ enum: ['available', 'offline'] }),
        upstream: UpstreamSchema,
      }),
      response: { 200: ModelAdminView, ...errors(400, 401) },
    },
  }, async (req) => modelAdminView(await upsertModel(s.ctx, req.body)));
}
