import { Type } from 'typebox';
import { FIXED_TERM_CATEGORIES, listFixedTermBills } from '../../../domain/billing/bills.ts';
import { errors, KeyBearer } from '../../schemas.ts';
import { principalOf, type App } from '../../types.ts';
import { UnixSeconds } from './schemas.ts';
import type { Ctx } from '../../../domain/context.ts';

const Bill = Type.Object({
  userId: Type.String(), memberId: Type.Optional(Type.String()), startTime: Type.String(), endTime: Type.String(),
  productName: Type.String(), productCategory: Type.String(), productId: Type.String(), ownerID: Type.String(),
  tradeMode: Type.String(), tradeType: Type.String(), billingMethod: Type.Integer(), basePrice: Type.String(),
  billNum: Type.String(), amount: Type.String(), voucherAmount: Type.String(), payAmount: Type.String(),
  payAmountDisplay: Type.Number(), pricePrecision: Type.Integer(), createTime: Type.String(), cycle: Type.String(),
  storageDays: Type.Optional(Type.Integer()),
});

export default function listFixedTermBillsRoute(app: App, s: { ctx: Ctx }): void {
  app.get('/openapi/v1/billing/bill/monthly/list', {
    config: { family: 'billing', auth: { kind: 'key', capability: 'readBilling' } },
    schema: {
      tags: ['billing'], summary: 'Query fixed-term billing (range at most 31 days, no paging)', security: KeyBearer,
      querystring: Type.Object({
        category: Type.Optional(Type.String({ description: FIXED_TERM_CATEGORIES.join(' | ') })),
        productName: Type.Optional(Type.String({ maxLength: 255 })),
        startTime: Type.Optional(UnixSeconds),
        endTime: Type.Optional(UnixSeconds),
        ownerId: Type.Optional(Type.String({ maxLength: 255 })),
      }),
      response: { 200: Type.Object({ bills: Type.Array(Bill) }), ...errors(400, 401, 403) },
    },
  }, async (req) => ({ bills: await listFixedTermBills(s.ctx, principalOf(req).teamId, req.query) }));
}
