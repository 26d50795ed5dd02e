import { Type } from 'typebox';
import { APIKEY_CYCLE_TYPES, listApiKeyBills } from '../../../domain/billing/bills.ts';
import { errors, KeyBearer } from '../../schemas.ts';
import { principalOf, type App } from '../../types.ts';
import { UnixSeconds, UsageBillRow } from './schemas.ts';
import type { Ctx } from '../../../domain/context.ts';

export default function listApiKeyBillsRoute(app: App, s: { ctx: Ctx }): void {
  app.get('/openapi/v1/billing/apikey/bill/list', {
    config: { family: 'billing', auth: { kind: 'key', capability: 'readBilling' } },
    schema: {
      tags: ['billing'], summary: 'API-key bills (ownerID is the key id; range at most 31 days)', security: KeyBearer,
      querystring: Type.Object({
        cycleType: Type.String({ description: APIKEY_CYCLE_TYPES.join(' | ') }),
        category: Type.Optional(Type.String()),
        productName: Type.Optional(Type.String({ maxLength: 255 })),
        startTime: UnixSeconds,
        endTime: UnixSeconds,
      }),
      response: { 200: Type.Object({ bills: Type.Array(UsageBillRow) }), ...errors(400, 401, 403) },
    },
  }, async (req) => ({ bills: await listApiKeyBills(s.ctx, principalOf(req).teamId, req.query) }));
}
