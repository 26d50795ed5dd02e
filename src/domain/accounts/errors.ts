// The reasons teams, members, persons and invitations refuse with (the account family),
// beyond a bad field (lib/errors.ts invalid), one not found (lib/errors.ts notFound) and a
// role that may not (../errors.ts roleRefused).
import { AppError, type Reason } from '../../lib/errors.ts';

export const ACCOUNTS_REASONS = ['CONFLICT', 'UNAUTHORIZED', 'FORBIDDEN', 'INVALID_ARGUMENT'] as const satisfies readonly Reason[];

/** The team already has a member with this e-mail. */
export function emailTaken(email: string): AppError {
  return new AppError('CONFLICT', `a member with e-mail ${email} already exists in this team`, { field: 'email' });
}

/** The change would leave the team without an active Owner. */
export function lastOwner(memberId: string): AppError {
  return new AppError('CONFLICT', 'a team keeps at least one active Owner: make another member Owner first', { memberId });
}

/**
 * A sign-in refused: the same answer whether the address has no account, the password is
 * wrong or the account has no seat it may use, so it never tells which (docs/security.md).
 */
export function signInRefused(): AppError {
  return new AppError('UNAUTHORIZED', 'wrong e-mail address or password');
}

/** A link's token that is unknown, used, expired or of another purpose: one answer for all four. */
export function linkRefused(purpose: string): AppError {
  return new AppError('UNAUTHORIZED', `the ${purpose} link is invalid, used or expired: ask for a new one`, { field: 'token', rule: `a ${purpose} link, unused, unexpired` });
}

/** Sign-up is not open (GANTRY_SIGNUP): the same answer for every address. */
export function signupClosed(mode: string): AppError {
  return new AppError('FORBIDDEN', mode === 'closed' ? 'sign-up is closed on this server' : 'sign-up is by invitation only on this server', { rule: `GANTRY_SIGNUP=${mode}` });
}

/** An Admin invites up to Admin; only an Owner could make an Owner, and an invitation never does. */
export function inviteRole(role: string): AppError {
  return new AppError('INVALID_ARGUMENT', `an invitation gives one of Admin, Developer, Basic, Billing, not ${role}: make an Owner from an active member`, { field: 'role', rule: 'never Owner' });
}

/** The person already holds a seat in the team the invitation is for. */
export function alreadyMember(teamId: string): AppError {
  return new AppError('CONFLICT', `you are a member of team ${teamId} already`, { field: 'token', teamId });
}

/** A password outside the rules (length). */
export function weakPassword(field: string, min: number, max: number): AppError {
  return new AppError('INVALID_ARGUMENT', `a password is ${min} to ${max} characters`, { field, rule: `length ${min}-${max}` });
}

/** A change only a person's own session may make (not an API key's, not the operator's). */
export function personSessionRequired(): AppError {
  return new AppError('UNAUTHORIZED', 'sign in with your e-mail address and password: this is your account\'s, not an API key\'s');
}

/** The person holds no seat in the team asked for (or one that cannot act). */
export function noSeat(teamId: string): AppError {
  return new AppError('FORBIDDEN', `you are not an active member of team ${teamId}`, { field: 'teamId', rule: 'an active seat' });
}

/** The password was right; two-factor sign-in is on and no code came with it. */
export function secondFactorRequired(): AppError {
  return new AppError('UNAUTHORIZED', 'two-factor sign-in is on: send the code of your authenticator app (totp) or a recovery code', { field: 'totp', rule: 'second factor' });
}

/** A TOTP code that is wrong, too old or used already, or a recovery code unknown or used. */
export function secondFactorRefused(): AppError {
  return new AppError('UNAUTHORIZED', 'wrong, expired or used two-factor code', { field: 'totp', rule: 'second factor' });
}

/** Enrolment's code does not match the secret being enrolled. */
export function wrongEnrolmentCode(): AppError {
  return new AppError('INVALID_ARGUMENT', 'the code does not match: check the app\'s clock and type the code it shows now', { field: 'code', rule: 'a code of the secret being enrolled' });
}

/** Two-factor sign-in is not in the state the operation needs. */
export function twoFactorState(message: string): AppError {
  return new AppError('CONFLICT', `two-factor sign-in is ${message}`, { rule: 'two-factor state' });
}

/** The team requires two-factor sign-in of persons and this one has it off: turn it on (the person's own routes still answer). */
export function teamRequiresTwoFactor(teamId: string): AppError {
  return new AppError('FORBIDDEN', `team ${teamId} requires two-factor sign-in: turn it on for your account (POST /console/two-factor) to act in it`, { teamId, rule: 'team requires two-factor' });
}

export function isTeamTwoFactorRefusal(err: unknown): boolean {
  return err instanceof AppError && err.metadata.rule === 'team requires two-factor';
}

/** A person session on an operator route whose person holds no active operator grant (the same 401 as a tenant key there). */
export function notOperator(): AppError {
  return new AppError('UNAUTHORIZED', 'missing or invalid operator token: your account is not an operator\'s');
}

/** An operator person without two-factor sign-in: the operator views stay closed until it is on. */
export function operatorTwoFactorRequired(): AppError {
  return new AppError('FORBIDDEN', 'operator accounts require two-factor sign-in: turn it on for your account (POST /console/two-factor) to open the operator views', { rule: 'operator requires two-factor' });
}

/** The address's account is an operator's already. */
export function operatorAlready(email: string): AppError {
  return new AppError('CONFLICT', `${email} is an operator already`, { field: 'email' });
}

/** A person session that acts in no team (an operator without a seat) called a team's route. */
export function noTeam(): AppError {
  return new AppError('FORBIDDEN', 'this session acts in no team: you hold no seat in one (an operator account opens the operator views only)', { rule: 'an active seat' });
}
