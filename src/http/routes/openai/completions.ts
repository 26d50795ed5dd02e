import { errors, KeyBearer } from '../../schemas.ts';
import type { App } from '../../types.ts';
import { answerModelCall } from '../../model-answer.ts';
import { CompletionBody, ModelAnswers } from '../../../gateway/openai/schemas.ts';
import { OPENAI_BASES, summary } from './bases.ts';
import type { Gateway } from '../../../gateway/gateway.ts';

export default function completionsRoute(app: App, s: { gateway: Gateway }): void {
  for (const base of OPENAI_BASES) {
    app.post(`${base}/completions`, {
      config: { family: 'llm', auth: { kind: 'key', capability: 'callModels' }, docResponses: ModelAnswers.completions },
      schema: {
        tags: ['llm'], summary: summary(base, 'Create a completion (stream or not)'), security: KeyBearer,
        body: CompletionBody,
        response: errors(400, 401, 403, 404, 429, 503),
      },
    }, (req, reply) => answerModelCall(s.gateway, 'completions', req, reply));
  }
}
