import { Type } from 'typebox';

export const OperatorGrantView = Type.Object({
  grantId: Type.String(),
  email: Type.String({ description: 'the address invited; once accepted, the person\'s current address' }),
  personId: Type.Optional(Type.String({ description: 'once accepted: the person who holds it' })),
  status: Type.String({ description: 'invited | active | revoked' }),
  grantedBy: Type.String({ description: 'operator-token, or the id of the operator person who granted it' }),
  twoFactor: Type.Boolean({ description: 'the person has two-factor sign-in on (without it the operator views stay closed)' }),
  createdAt: Type.String(),
  acceptedAt: Type.Optional(Type.String()),
});
