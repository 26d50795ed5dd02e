import { Type } from 'typebox';
import { errors, KeyBearer } from '../../schemas.ts';
import { principalOf, type App } from '../../types.ts';
import { ModelRecord } from '../../../gateway/openai/schemas.ts';
import { OPENAI_BASES, summary } from './bases.ts';
import type { Gateway } from '../../../gateway/gateway.ts';

export default function listModels(app: App, s: { gateway: Gateway }): void {
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
