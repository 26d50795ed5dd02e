import { Type } from 'typebox';
import { BILLING_METHOD, MAX_BILLING_METHOD, MIN_BILLING_METHOD } from '../../../domain/billing/codes.ts';
import { postFixedTermBill } from '../../../domain/billing/fixed-term.ts';
import { requireMember } from '../../../domain/accounts/members.ts';
import { MAX_AMOUNT_UNITS, unitsToMicro } from '../../../lib/money.ts';
import { parseUInt64 } from '../../../lib/int64.ts';
import { Int32, UNIX_SECONDS_MAX, UnitsInput, errors, OperatorBearer, UserIdParams } from '../../schemas.ts';
import type { App } from '../../types.ts';
import { Amount, IdempotencyKey, Posted } from './team-schema.ts';
import { postedView } from './posted-view.ts';
import type { Ctx } from '../../../domain/context.ts';

export default function postFixedTermBillRoute(app: App, s: { ctx: Ctx }): void {
  app.post('/admin/v1/teams/:userId/fixed-term-bills', {
    config: { family: 'operator', auth: { kind: 'operator' } },
    schema: {
      tags: ['admin'], summary: 'Post a subscription (fixed-term) bill entry and its ledger charge', security: OperatorBearer,
      params: UserIdParams,
      body: Type.Object({
        amount: Amount,
        productId: Type.String({ minLength: 1, maxLength: 255 }),
        productName: Type.String({ minLength: 1, maxLength: 255 }),
        productCategory: Type.String({ enum: ['gpu', 'serverless', 'cloud_storage', 'local_storage', 'image', 'bare_metal'] }),
        ownerId: Type.String({ minLength: 1, maxLength: 255 }),
        tradeType: Type.String({ enum: ['monthly_new_buy', 'monthly_re_buy', 'monthly_re_config'] }),
        billingMethod: Type.Optional(Type.Integer({ minimum: MIN_BILLING_METHOD, maximum: MAX_BILLING_METHOD, default: BILLING_METHOD.subscription })),
        basePrice: UnitsInput,
        billNum: Type.String({ pattern: '^[0-9]+(\\.[0-9]+)?$' }),
        startTime: Type.Integer({ minimum: 0, maximum: UNIX_SECONDS_MAX, description: 'Unix seconds' }),
        endTime: Type.Integer({ minimum: 0, maximum: UNIX_SECONDS_MAX, description: 'Unix seconds' }),
        memberId: Type.Optional(Type.String()),
        storageDays: Type.Optional(Int32({ minimum: 0 })),
        idempotencyKey: IdempotencyKey,
      }),
      response: { 200: Posted, ...errors(400, 401, 404, 409) },
    },
  }, async (req) => {
    const b = req.body;
    if (b.memberId) await requireMember(s.ctx, req.params.userId, b.memberId);
    return postedView(await postFixedTermBill(s.ctx, {
      teamId: req.params.userId, amountMicro: unitsToMicro(parseUInt64(b.amount, 'amount', MAX_AMOUNT_UNITS)), idempotencyKey: b.idempotencyKey,
      productId: b.productId, productName: b.productName, productCategory: b.productCategory, ownerId: b.ownerId,
      tradeType: b.tradeType, billingMethod: b.billingMethod ?? BILLING_METHOD.subscription, basePriceUnits: parseUInt64(b.basePrice, 'basePrice', MAX_AMOUNT_UNITS), billNum: b.billNum,
      startTimeS: b.startTime, endTimeS: b.endTime, memberId: b.memberId ?? null, storageDays: b.storageDays ?? null,
    }));
  });
}
