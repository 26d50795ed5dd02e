import { Type } from 'typebox';
import { listUsageBills, USAGE_CATEGORIES, USAGE_CYCLE_TYPES } from '../../../domain/billing/bills.ts';
import { errors, KeyBearer } from '../../schemas.ts';
import { principalOf, type App } from '../../types.ts';
import { UnixSeconds, UsageBillRow } from './schemas.ts';
import type { Ctx } from '../../../domain/context.ts';

export default function listUsageBillsRoute(app: App, s: { ctx: Ctx }): void {
  app.get('/openapi/v1/billing/bill/list', {
    config: { family: 'billing', auth: { kind: 'key', capability: 'readBilling' } },
    schema: {
      tags: ['billing'], summary: 'Usage bills aggregated from the ledger (range at most 31 days)', security: KeyBearer,
      querystring: Type.Object({
        cycleType: Type.String({ description: USAGE_CYCLE_TYPES.join(' | ') }),
        productCategory: Type.String({ description: USAGE_CATEGORIES.join(' | ') }),
        category: Type.Optional(Type.String()),
        productName: Type.Optional(Type.String({ maxLength: 255 })),
        startTime: Type.Optional(UnixSeconds),
        endTime: Type.Optional(UnixSeconds),
        ownerId: Type.Optional(Type.String({ maxLength: 255 })),
      }),
      response: { 200: Type.Object({ bills: Type.Array(UsageBillRow) }), ...errors(400, 401, 403) },
    },
  }, async (req) => ({ bills: await listUsageBills(s.ctx, principalOf(req).teamId, req.query) }));
}
