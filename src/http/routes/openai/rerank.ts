import { errors, KeyBearer } from '../../schemas.ts';
import { principalOf, type App, type Services } from '../../types.ts';
import { RerankBody, ModelAnswers, OPENAI_BASES } from './schemas.ts';

export default function rerankRoute(app: App, s: Services): void {
  for (const base of OPENAI_BASES) {
    app.post(`${base}/rerank`, {
      config: { auth: { kind: 'key', capability: 'callModels' }, docResponses: ModelAnswers.rerank },
      schema: {
        tags: ['llm'], summary: base === '/openai/v1' ? 'Rerank documents against a query' : 'Rerank documents against a query (alias of /openai/v1)', security: KeyBearer,
        body: RerankBody,
        response: errors(400, 401, 403, 404, 429, 503),
      },
    }, async (req, reply) => {
      await s.gateway.handle('rerank', principalOf(req), req.body as Record<string, unknown>, reply);
      return reply;
    });
  }
}
