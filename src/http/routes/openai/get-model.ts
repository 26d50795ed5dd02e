import { errors, KeyBearer } from '../../schemas.ts';
import { principalOf, type App, type Services } from '../../types.ts';
import { ModelRecord } from '../../../gateway/openai/schemas.ts';
import { OPENAI_BASES } from './bases.ts';

export default function getModel(app: App, s: Pick<Services, 'gateway'>): void {
  for (const base of OPENAI_BASES) {
    // Model ids contain '/', so the id is the rest of the path (the router has already
    // decoded it: decoding again would turn %25zz into a broken escape).
    app.get(`${base}/models/*`, {
      config: { family: 'llm', auth: { kind: 'key', capability: 'callModels' } },
      schema: {
        tags: ['llm'], summary: base === '/openai/v1' ? 'Retrieve a model' : 'Retrieve a model (alias of /openai/v1)', security: KeyBearer,
        response: { 200: ModelRecord, ...errors(401, 403, 404) },
      },
    }, async (req) => s.gateway.getModel(principalOf(req), (req.params as { '*': string })['*']));
  }
}
