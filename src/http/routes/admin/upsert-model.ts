import { Type } from 'typebox';
import { MODEL_STATUSES, modelAdminView } from '../../../domain/models/models.ts';
import { CHECK_MODES, saveModel, type Catalogue } from '../../../domain/models/catalogue.ts';
import { Int32, PriceInput, errors, OperatorBearer } from '../../schemas.ts';
import type { App } from '../../types.ts';
import { ModelAdminView, ModelCheckSchema, UpstreamSchema } from './model-schema.ts';

export default function upsertModelRoute(app: App, s: { catalogue: Catalogue }): void {
  app.post('/admin/v1/models', {
    config: { family: 'operator', auth: { kind: 'operator' } },
    schema: {
      tags: ['admin'], summary: 'Create or replace an LLM model, checking its HTTP upstreams once', security: OperatorBearer,
      querystring: Type.Object({
        check: Type.Optional(Type.Union(CHECK_MODES.map((m) => Type.Literal(m)), { description: 'warn (default): save and answer what the upstream check found; strict: refuse (400, nothing saved) when it fails; off: no check' })),
      }),
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
        status: Type.String({ enum: [...MODEL_STATUSES], description: 'available; offline: not listed nor callable for now; retired: for good (leaves the operator\'s list too, cannot be enabled for a team)' }),
        upstream: UpstreamSchema,
      }),
      response: {
        200: Type.Intersect([ModelAdminView, Type.Object({ check: Type.Union([ModelCheckSchema, Type.Null()], { description: 'null: check=off' }) })]),
        ...errors(400, 401),
      },
    },
  }, async (req) => {
    const { row, check } = await saveModel(s.catalogue, req.body, req.query.check ?? 'warn');
    return { ...modelAdminView(row), check };
  });
}
