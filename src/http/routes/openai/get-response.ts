import { errors, KeyBearer } from '../../schemas.ts';
import type { App } from '../../types.ts';
import { principalOf } from '../../types.ts';
import { ModelAnswers, ResponseIdParams } from '../../../gateway/openai/schemas.ts';
import { OPENAI_BASES, summary } from './bases.ts';
import { getResponse, type Responses } from '../../../domain/responses/responses.ts';

export default function getResponseRoute(app: App, s: { responses: Responses }): void {
  for (const base of OPENAI_BASES) {
    app.get(`${base}/responses/:id`, {
      config: { family: 'llm', auth: { kind: 'key', capability: 'callModels' }, docResponses: ModelAnswers.storedResponse },
      schema: {
        tags: ['llm'], summary: summary(base, 'Retrieve a stored response (of the key\'s team)'), security: KeyBearer,
        params: ResponseIdParams,
        response: errors(400, 401, 404),
      },
    }, async (req) => getResponse(s.responses, principalOf(req), req.params.id));
  }
}
