import { Type } from 'typebox';
import { errors, KeyBearer } from '../../schemas.ts';
import { principalOf, type App } from '../../types.ts';
import { OPENAI_BASES, renderingOf, summary } from '../openai/bases.ts';
import { BATCH_ENDPOINTS } from '../../../domain/batches/view.ts';
import { createBatch, COMPLETION_WINDOW, COMPLETION_WINDOWS, type CreateBatch, type Batches } from '../../../domain/batches/service.ts';
import { Id, renderer } from './schemas.ts';

export default function createBatchRoute(app: App, s: { batches: Batches }): void {
  for (const base of OPENAI_BASES) {
    const render = renderer(renderingOf(base));
    app.post(`${base}/batches`, {
      config: { family: 'llm', auth: { kind: 'key', capability: 'callModels' } },
      schema: {
        tags: ['llm'], summary: summary(base, 'Create a batch from an uploaded input file'), security: KeyBearer,
        body: Type.Object({
          input_file_id: Id('an uploaded file with purpose batch'),
          endpoint: Type.String({ enum: [...BATCH_ENDPOINTS] }),
          completion_window: Type.Optional(Type.String({ enum: [...COMPLETION_WINDOWS], description: `the window applied is ${COMPLETION_WINDOW} whichever is asked` })),
          // OpenAI's limits: 16 pairs, keys up to 64 characters, values up to 512
          metadata: Type.Optional(Type.Union([
            // no NUL: PostgreSQL's jsonb keeps none
            Type.Record(Type.String({ maxLength: 64, pattern: '^[^\\u0000]*$' }), Type.String({ maxLength: 512, pattern: '^[^\\u0000]*$' }), { maxProperties: 16 }), Type.Null(),
          ])),
        }),
        response: { 200: render.shapes.batch, ...errors(400, 401, 403) },
      },
    }, async (req) => render.batch(await createBatch(s.batches, principalOf(req), req.body as CreateBatch)));
  }
}
