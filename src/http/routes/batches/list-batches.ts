import { Type } from 'typebox';
import { errors, KeyBearer } from '../../schemas.ts';
import { principalOf, type App } from '../../types.ts';
import { OPENAI_BASES, renderingOf, summary } from '../openai/bases.ts';
import { Id, renderer } from './schemas.ts';
import { listBatches, type Batches } from '../../../domain/batches/service.ts';

export default function listBatchesRoute(app: App, s: { batches: Batches }): void {
  for (const base of OPENAI_BASES) {
    const render = renderer(renderingOf(base));
    app.get(`${base}/batches`, {
      config: { family: 'llm', auth: { kind: 'key', capability: 'callModels' } },
      schema: {
        tags: ['llm'], summary: summary(base, "List the team's batches, newest first"), security: KeyBearer,
        querystring: Type.Object({
          limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
          after: Type.Optional(Id('the last id of the previous page')),
        }),
        response: { 200: render.shapes.list, ...errors(400, 401, 403) },
      },
    }, async (req) => render.list(await listBatches(s.batches, principalOf(req), req.query as { limit: number; after?: string })));
  }
}
