import { Type } from 'typebox';
import { Int64Input } from '../../schemas.ts';

const budgetFields = {
  budget_type: Type.String({ enum: ['Unlimited', 'One-time', 'Recurring'] }),
  budget_limit: Type.Integer({ description: '1/10000 USD' }),
  used: Type.Integer(),
  remaining: Type.Integer({ description: 'may be negative' }),
  cycle: Type.Optional(Type.String()),
  period_start: Type.Optional(Type.String({ description: 'ISO 8601 UTC' })),
  period_end: Type.Optional(Type.String({ description: 'ISO 8601 UTC' })),
};

export const MemberBudgetEntry = Type.Object({
  email: Type.String(), role: Type.String(), status: Type.String(), member_id: Type.String(), phone: Type.String(),
  user_id: Type.String(), remark_name: Type.String(), ...budgetFields,
});

export const KeyBudgetEntry = Type.Object({ key_id: Type.String(), key_name: Type.String(), ...budgetFields });

export const BudgetWrite = {
  budget_type: Type.String({ enum: ['Unlimited', 'One-time', 'Recurring'] }),
  budget_limit: Type.Optional(Int64Input),
  cycle: Type.Optional(Type.String({ description: 'Monthly; required for Recurring' })),
};

export const Enough = Type.Object({ enough: Type.Boolean() });
export const Cost = Int64Input;

export const DefaultKeyBudget = Type.Object({
  member_id: Type.String(),
  budget_type: Type.String({ enum: ['Unlimited', 'One-time', 'Recurring'] }),
  budget_limit: Type.Integer({ description: '1/10000 USD; 0 when Unlimited' }),
  cycle: Type.Optional(Type.String({ description: 'only for Recurring' })),
});
