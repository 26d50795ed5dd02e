import { Type } from 'typebox';
import { UNIX_SECONDS_MAX } from '../../schemas.ts';

export const UsageBillRow = Type.Object({
  userId: Type.String(), startTime: Type.String(), endTime: Type.String(), billingMethod: Type.Integer(),
  productName: Type.String(), category: Type.String(), ownerID: Type.String(),
  billNum0: Type.String(), billNum1: Type.String(), basePrice0: Type.String(), basePrice1: Type.String(),
  discountPrice0: Type.String(), discountPrice1: Type.String(),
  amount: Type.String(), voucherAmount: Type.String(), payAmount: Type.String(), payAmountDisplay: Type.Number(),
  pricePrecision: Type.Integer(), productId: Type.String(),
  apikeyName: Type.Optional(Type.String()), apikeyMask: Type.Optional(Type.String()),
});

export const UnixSeconds = Type.Integer({ minimum: 0, maximum: UNIX_SECONDS_MAX, description: 'Unix seconds' });
