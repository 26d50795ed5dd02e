import { Type } from 'typebox';
import { errors, KeyBearer } from '../../schemas.ts';
import { principalOf, type App, type Services } from '../../types.ts';
import { ModelRecord } from '../../../gateway/openai/schemas.ts';
import { OPENAI_BASES, summary } from './bases.ts';

export default function listModels(app: App, s: Pick<Services, 'gateway'>): void {
  for (const base of OPENAI_BASES) {
    app.get(`${base}/models`, {
      config: { family: 'llm', auth: { kind: 'key', capability: 'callModels' } },
      schema: {
        tags: ['llm'], summary: summary(base, 'List the models this API key may call'), security: KeyBearer,
        response: { 200: Type.Object({ object: Type.Literal('list'), data: Type.Array(ModelRecord) }), ...errors(401, 403) },
      },
    }, async (req) => s.gateway.listModels(principalOf(req)));
  }
}
