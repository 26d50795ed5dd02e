// The routes of accounts/ (persons: sign-up, links, passwords, invitations; the sign-in itself
// is the console's POST /console/session): one operation per file, registered in this order.
import type { RouteRegistrar } from '../../types.ts';
import signUp from './sign-up.ts';
import confirm from './confirm.ts';
import forgotPassword from './forgot-password.ts';
import resetPassword from './reset-password.ts';
import changePassword from './change-password.ts';
import invite from './invite.ts';
import listInvitations from './list-invitations.ts';
import revokeInvitation from './revoke-invitation.ts';
import resendInvitation from './resend-invitation.ts';
import acceptInvitation from './accept-invitation.ts';
import startTwoFactor from './start-two-factor.ts';
import confirmTwoFactor from './confirm-two-factor.ts';
import disableTwoFactor from './disable-two-factor.ts';
import requireTwoFactor from './require-two-factor.ts';
import changeEmail from './change-email.ts';
import confirmEmail from './confirm-email.ts';
import operatorAccept from './operator-accept.ts';

export default [
  signUp,
  confirm,
  forgotPassword,
  resetPassword,
  changePassword,
  invite,
  listInvitations,
  revokeInvitation,
  resendInvitation,
  acceptInvitation,
  startTwoFactor,
  confirmTwoFactor,
  disableTwoFactor,
  requireTwoFactor,
  changeEmail,
  confirmEmail,
  operatorAccept,
] satisfies RouteRegistrar[];
