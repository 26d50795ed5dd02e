import { Type } from 'typebox';

export const TeamView = Type.Object({
  userId: Type.String(), name: Type.String(), status: Type.String(), tier: Type.String(),
  enabledModels: Type.Union([Type.Array(Type.String()), Type.Null()]), createdAt: Type.String(),
});
export const Amount = Type.Union([Type.Integer({ minimum: 1 }), Type.String({ pattern: '^[0-9]+$' })], { description: '1/10000 USD' });
export const IdempotencyKey = Type.String({ minLength: 1, maxLength: 255 });

export const Posted = Type.Object({
  ledgerId: Type.String(),
  duplicate: Type.Boolean({ description: 'true when the idempotency key was seen before: nothing was posted' }),
  amount: Type.String(), voucherAmount: Type.String(), cashAmount: Type.String(), debtAmount: Type.String(),
});
