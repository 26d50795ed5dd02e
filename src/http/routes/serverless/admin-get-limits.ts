import { getLimits } from '../../../domain/serverless/limits.ts';
import { errors, OperatorBearer } from '../../schemas.ts';
import type { App } from '../../types.ts';
import { LimitsView } from './schemas.ts';
import type { Ctx } from '../../../domain/context.ts';

export default function serverlessGetLimitsRoute(app: App, s: { ctx: Ctx }): void {
  app.get('/admin/v1/serverless/limits', {
    config: { family: 'operator', auth: { kind: 'operator' } },
    schema: {
      tags: ['admin'], summary: 'The ranges serverless endpoint create and update accept (tenants read them at /endpoint/limit)', security: OperatorBearer,
      response: { 200: LimitsView, ...errors(401) },
    },
  }, () => getLimits(s.ctx));
}
