import { errors, KeyBearer } from '../../schemas.ts';
import type { App } from '../../types.ts';
import { principalOf } from '../../types.ts';
import { answerModelCall } from '../../model-answer.ts';
import type { ResponsesBody as Body } from '../../../gateway/responses/request.ts';
import { responsesDoor } from './responses-door.ts';
import { ModelAnswers, ResponsesBody } from '../../../gateway/openai/schemas.ts';
import { OPENAI_BASES, summary } from './bases.ts';
import type { Ctx } from '../../../domain/context.ts';
import type { Gateway } from '../../../gateway/gateway.ts';
import type { Responses } from '../../../domain/responses/responses.ts';

export default function createResponseRoute(app: App, s: { ctx: Ctx; gateway: Gateway; responses: Responses }): void {
  for (const base of OPENAI_BASES) {
    app.post(`${base}/responses`, {
      config: { family: 'llm', auth: { kind: 'key', capability: 'callModels' }, docResponses: ModelAnswers.response },
      schema: {
        tags: ['llm'], summary: summary(base, 'Create a response (Responses API; stream or not)'), security: KeyBearer,
        body: ResponsesBody,
        response: errors(400, 401, 403, 404, 429, 503),
      },
    }, async (req, reply) => answerModelCall(s.gateway, 'chat.completions', req, reply, await responsesDoor(s, principalOf(req), req.body as Body, req.log)));
  }
}
