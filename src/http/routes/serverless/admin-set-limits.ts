import { Type } from 'typebox';
import { setLimits, DEFAULT_LIMITS } from '../../../domain/serverless/limits.ts';
import { errors, Int32, OperatorBearer } from '../../schemas.ts';
import type { App } from '../../types.ts';
import { LimitsView } from './schemas.ts';
import type { Ctx } from '../../../domain/context.ts';

const intFields = Object.fromEntries(Object.entries(DEFAULT_LIMITS).filter(([, v]) => typeof v === 'number')
  .map(([k, v]) => [k, Type.Optional(Int32({ description: `default ${v}` }))]));

export default function serverlessSetLimitsRoute(app: App, s: { ctx: Ctx }): void {
  app.put('/admin/v1/serverless/limits', {
    config: { family: 'operator', auth: { kind: 'operator' } },
    schema: {
      tags: ['admin'], summary: 'Change serverless endpoint limits: the fields given replace theirs (min ≤ max); answers all of them', security: OperatorBearer,
      body: Type.Object({
        ...intFields,
        cudaVersionList: Type.Optional(Type.Array(Type.String(), { description: `CUDA versions a worker may ask for (default ${DEFAULT_LIMITS.cudaVersionList.join(', ')})` })),
      }, { additionalProperties: false }),
      response: { 200: LimitsView, ...errors(400, 401) },
    },
  }, (req) => setLimits(s.ctx, req.body));
}
