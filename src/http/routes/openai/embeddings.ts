import { errors, KeyBearer } from '../../schemas.ts';
import type { App } from '../../types.ts';
import { answerModelCall } from '../../model-answer.ts';
import { EmbeddingBody, ModelAnswers } from '../../../gateway/openai/schemas.ts';
import { OPENAI_BASES, summary } from './bases.ts';
import type { Gateway } from '../../../gateway/gateway.ts';

export default function embeddingsRoute(app: App, s: { gateway: Gateway }): void {
  for (const base of OPENAI_BASES) {
    app.post(`${base}/embeddings`, {
      config: { family: 'llm', auth: { kind: 'key', capability: 'callModels' }, docResponses: ModelAnswers.embeddings },
      schema: {
        tags: ['llm'], summary: summary(base, 'Create embeddings'), security: KeyBearer,
        body: EmbeddingBody,
        response: errors(400, 401, 403, 404, 429, 503),
      },
    }, (req, reply) => answerModelCall(s.gateway, 'embeddings', req, reply));
  }
}
