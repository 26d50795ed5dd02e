import { errors, KeyBearer } from '../../schemas.ts';
import type { App, Services } from '../../types.ts';
import { principalOf } from '../../types.ts';
import { ModelAnswers, ResponseIdParams } from '../../../gateway/openai/schemas.ts';
import { OPENAI_BASES } from './bases.ts';
import { deleteResponse } from '../../../domain/responses/responses.ts';

export default function deleteResponseRoute(app: App, s: Pick<Services, 'responses'>): void {
  for (const base of OPENAI_BASES) {
    app.delete(`${base}/responses/:id`, {
      config: { family: 'llm', auth: { kind: 'key', capability: 'callModels' }, docResponses: ModelAnswers.deletedResponse },
      schema: {
        tags: ['llm'], summary: base === '/openai/v1' ? 'Delete a stored response (of the key\'s team)' : 'Delete a stored response (alias of /openai/v1)', security: KeyBearer,
        params: ResponseIdParams,
        response: errors(400, 401, 404),
      },
    }, async (req) => deleteResponse(s.responses, principalOf(req), req.params.id));
  }
}
