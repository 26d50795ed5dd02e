import { errors, KeyBearer } from '../../schemas.ts';
import type { App } from '../../types.ts';
import { answerModelCall } from '../../model-answer.ts';
import { RerankBody, ModelAnswers } from '../../../gateway/openai/schemas.ts';
import { OPENAI_BASES, summary } from './bases.ts';
import type { Gateway } from '../../../gateway/gateway.ts';

export default function rerankRoute(app: App, s: { gateway: Gateway }): void {
  for (const base of OPENAI_BASES) {
    app.post(`${base}/rerank`, {
      config: { family: 'llm', auth: { kind: 'key', capability: 'callModels' }, docResponses: ModelAnswers.rerank },
      schema: {
        tags: ['llm'], summary: summary(base, 'Rerank documents against a query'), security: KeyBearer,
        body: RerankBody,
        response: errors(400, 401, 403, 404, 429, 503),
      },
    }, (req, reply) => answerModelCall(s.gateway, 'rerank', req, reply));
  }
}
