// Fields the accounts' routes share.
import { Type } from 'typebox';

export const Email = Type.String({ minLength: 3, maxLength: 254 });
/** the domain checks the length (8 to 1024: domain/accounts/persons.ts) and says so in the unified body */
export const NewPassword = Type.String({ maxLength: 1024 });
export const Password = Type.String({ maxLength: 1024 });
/** a link's token, as the console read it from the link's fragment */
export const Token = Type.String({ maxLength: 128 });

/** a code of the person's authenticator app (two-factor sign-in) */
export const TotpCode = Type.String({ maxLength: 16 });
export const RecoveryCode = Type.String({ maxLength: 32 });

export const InvitationView = Type.Object({
  invitationId: Type.String(), teamId: Type.String(), memberId: Type.String({ description: 'the seat it holds (status invited until accepted)' }),
  email: Type.String(), role: Type.String(), invitedBy: Type.String(),
  status: Type.String({ description: 'pending | accepted | revoked | expired' }), createdAt: Type.String(), expiresAt: Type.String(),
});
