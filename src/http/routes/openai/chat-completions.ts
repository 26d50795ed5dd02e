import { errors, KeyBearer } from '../../schemas.ts';
import type { App } from '../../types.ts';
import { answerModelCall } from '../../model-answer.ts';
import { ChatBody, ModelAnswers } from '../../../gateway/openai/schemas.ts';
import { OPENAI_BASES, summary } from './bases.ts';
import type { Gateway } from '../../../gateway/gateway.ts';

export default function chatCompletionsRoute(app: App, s: { gateway: Gateway }): void {
  for (const base of OPENAI_BASES) {
    app.post(`${base}/chat/completions`, {
      config: { family: 'llm', auth: { kind: 'key', capability: 'callModels' }, docResponses: ModelAnswers.chat },
      schema: {
        tags: ['llm'], summary: summary(base, 'Create a chat completion (stream or not)'), security: KeyBearer,
        body: ChatBody,
        response: errors(400, 401, 403, 404, 429, 503),
      },
    }, (req, reply) => answerModelCall(s.gateway, 'chat.completions', req, reply));
  }
}
