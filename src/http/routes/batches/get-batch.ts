import { errors, KeyBearer } from '../../schemas.ts';
import { principalOf, type App } from '../../types.ts';
import { OPENAI_BASES, renderingOf, summary } from '../openai/bases.ts';
import { BatchIdParams, renderer } from './schemas.ts';
import { getBatch, type Batches } from '../../../domain/batches/service.ts';

export default function getBatchRoute(app: App, s: { batches: Batches }): void {
  for (const base of OPENAI_BASES) {
    const render = renderer(renderingOf(base));
    app.get(`${base}/batches/:batch_id`, {
      config: { family: 'llm', auth: { kind: 'key', capability: 'callModels' } },
      schema: {
        tags: ['llm'], summary: summary(base, 'Retrieve a batch'), security: KeyBearer,
        params: BatchIdParams,
        response: { 200: render.shapes.batch, ...errors(400, 401, 403, 404) },
      },
    }, async (req) => render.batch(await getBatch(s.batches, principalOf(req), (req.params as { batch_id: string }).batch_id)));
  }
}
