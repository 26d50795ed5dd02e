import { getLimits } from '../../../domain/serverless/limits.ts';
import { errors, KeyBearer } from '../../schemas.ts';
import type { App } from '../../types.ts';
import { GPU_BASE } from '../compute/schemas.ts';
import { LimitsView } from './schemas.ts';
import type { Ctx } from '../../../domain/context.ts';

export default function getEndpointLimitRoute(app: App, s: { ctx: Ctx }): void {
  app.get(`${GPU_BASE}/endpoint/limit`, {
    config: { family: 'gpu', auth: { kind: 'key', capability: 'readCompute' } },
    schema: {
      tags: ['serverless'], summary: 'The ranges create and update accept (set by the operator)', security: KeyBearer,
      response: { 200: LimitsView, ...errors(401, 403) },
    },
  }, () => getLimits(s.ctx));
}
