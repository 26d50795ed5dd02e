import { Type } from 'typebox';
import { UnitsInput } from '../../schemas.ts';

export const TeamView = Type.Object({
  userId: Type.String(), name: Type.String(), status: Type.String(), tier: Type.String(),
  enabledModels: Type.Union([Type.Array(Type.String()), Type.Null()]), createdAt: Type.String(),
});
export const Amount = UnitsInput;
export const IdempotencyKey = Type.String({ minLength: 1, maxLength: 255 });

export const Posted = Type.Object({
  ledgerId: Type.String(),
  duplicate: Type.Boolean({ description: 'true when the idempotency key was seen before: nothing was posted' }),
  amount: Type.String(), voucherAmount: Type.String(), cashAmount: Type.String(), debtAmount: Type.String(),
});
