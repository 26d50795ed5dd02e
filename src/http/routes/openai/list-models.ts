import { Type } from 'typebox';
import { errors, KeyBearer } from '../../schemas.ts';
import { principalOf, type App, type Services } from '../../types.ts';
import { ModelRecord } from '../../../gateway/openai/schemas.ts';
import { OPENAI_BASES } from './bases.ts';

export default function listModels(app: App, s: Pick<Services, 'gateway'>): void {
  for (const base of OPENAI_BASES) {
    app.get(`${base}/models`, {
      config: { family: 'llm', auth: { kind: 'key', capability: 'callModels' } },
      schema: {
        tags: ['llm'], summary: base === '/openai/v1' ? 'List the models this API key may call' : 'List the models this API key may call (alias of /openai/v1)', security: KeyBearer,
        response: { 200: Type.Object({ object: Type.Literal('list'), data: Type.Array(ModelRecord) }), ...errors(401, 403) },
      },
    }, async (req) => s.gateway.listModels(principalOf(req)));
  }
}
