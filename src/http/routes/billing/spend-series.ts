import { Type } from 'typebox';
import { APIKEY_CYCLE_TYPES, MAX_SPEND_RANGE_DAYS, SPEND_GROUPS, spendSeries } from '../../../domain/billing/bills.ts';
import { errors, KeyBearer } from '../../schemas.ts';
import { principalOf, type App } from '../../types.ts';
import { UnixSeconds } from './schemas.ts';
import type { Ctx } from '../../../domain/context.ts';

export default function spendSeriesRoute(app: App, s: { ctx: Ctx }): void {
  app.get('/openapi/v1/billing/spend/series', {
    config: { family: 'billing', auth: { kind: 'key', capability: 'readBilling' } },
    schema: {
      tags: ['billing'], security: KeyBearer,
      summary: `Spend over time by category, model or API key (Gantry extension; range at most ${MAX_SPEND_RANGE_DAYS} days, one row per bucket and group)`,
      querystring: Type.Object({
        cycleType: Type.String({ description: APIKEY_CYCLE_TYPES.join(' | ') }),
        groupBy: Type.String({ description: SPEND_GROUPS.join(' | ') }),
        startTime: Type.Optional(UnixSeconds),
        endTime: Type.Optional(UnixSeconds),
      }),
      response: {
        200: Type.Object({
          data: Type.Array(Type.Object({
            startTime: Type.String({ description: 'Unix seconds: the bucket\'s start (UTC)' }),
            group: Type.String({ description: 'the category, the model (product name) or the API key\'s name' }),
            amount: Type.String({ description: '1/10000 USD charged (vouchers and cash)' }),
          })),
        }),
        ...errors(400, 401, 403),
      },
    },
  }, async (req) => ({ data: await spendSeries(s.ctx, principalOf(req).teamId, req.query) }));
}
