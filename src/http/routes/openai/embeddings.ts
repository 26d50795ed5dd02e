import { errors, KeyBearer } from '../../schemas.ts';
import { principalOf, type App, type Services } from '../../types.ts';
import { EmbeddingBody, ModelAnswers, OPENAI_BASES } from './schemas.ts';

export default function embeddingsRoute(app: App, s: Services): void {
  for (const base of OPENAI_BASES) {
    app.post(`${base}/embeddings`, {
      config: { auth: { kind: 'key', capability: 'callModels' }, docResponses: ModelAnswers.embeddings },
      schema: {
        tags: ['llm'], summary: base === '/openai/v1' ? 'Create embeddings' : 'Create embeddings (alias of /openai/v1)', security: KeyBearer,
        body: EmbeddingBody,
        response: errors(400, 401, 403, 404, 429, 503),
      },
    }, async (req, reply) => {
      await s.gateway.handle('embeddings', principalOf(req), req.body as Record<string, unknown>, reply);
      return reply;
    });
  }
}
