import { errors, KeyBearer } from '../../schemas.ts';
import { principalOf, type App } from '../../types.ts';
import { ModelRecord } from '../../../gateway/openai/schemas.ts';
import { OPENAI_BASES, summary } from './bases.ts';
import type { Gateway } from '../../../gateway/gateway.ts';

export default function getModel(app: App, s: { gateway: Gateway }): void {
  for (const base of OPENAI_BASES) {
    // Model ids contain '/', so the id is the rest of the path (the router has already
    // decoded it: decoding again would turn %25zz into a broken escape).
    app.get(`${base}/models/*`, {
      config: { family: 'llm', auth: { kind: 'key', capability: 'callModels' } },
      schema: {
        tags: ['llm'], summary: summary(base, 'Retrieve a model'), security: KeyBearer,
        response: { 200: ModelRecord, ...errors(401, 403, 404) },
      },
    }, async (req) => s.gateway.getModel(principalOf(req), (req.params as { '*': string })['*']));
  }
}
