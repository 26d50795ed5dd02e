import { Type } from 'typebox';
import { errors, KeyBearer } from '../../schemas.ts';
import { principalOf, type App, type Services } from '../../types.ts';
import { OPENAI_BASES } from '../openai/bases.ts';
import { BatchObject, Id, summary } from './schemas.ts';
import { listBatches } from '../../../domain/batches/service.ts';

const BatchList = Type.Object({
  object: Type.Literal('list'), data: Type.Array(BatchObject),
  first_id: Type.Union([Type.String(), Type.Null()]), last_id: Type.Union([Type.String(), Type.Null()]), has_more: Type.Boolean(),
});

export default function listBatchesRoute(app: App, s: Pick<Services, 'batches'>): void {
  for (const base of OPENAI_BASES) {
    app.get(`${base}/batches`, {
      config: { family: 'llm', auth: { kind: 'key', capability: 'callModels' } },
      schema: {
        tags: ['llm'], summary: summary(base, "List the team's batches, newest first"), security: KeyBearer,
        querystring: Type.Object({
          limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
          after: Type.Optional(Id('the last id of the previous page')),
        }),
        response: { 200: BatchList, ...errors(400, 401, 403) },
      },
    }, async (req) => listBatches(s.batches, principalOf(req), req.query as { limit: number; after?: string }));
  }
}
