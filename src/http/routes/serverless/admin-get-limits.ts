import { getLimits } from '../../../domain/serverless/limits.ts';
import { errors, OperatorBearer } from '../../schemas.ts';
import type { App, Services } from '../../types.ts';
import { LimitsView } from './schemas.ts';

export default function serverlessGetLimitsRoute(app: App, s: Pick<Services, 'ctx'>): void {
  app.get('/admin/v1/serverless/limits', {
    config: { family: 'operator', auth: { kind: 'operator' } },
    schema: {
      tags: ['admin'], summary: 'The ranges serverless endpoint create and update accept (tenants read them at /endpoint/limit)', security: OperatorBearer,
      response: { 200: LimitsView, ...errors(401) },
    },
  }, () => getLimits(s.ctx));
}
