// The routes of console/: one operation per file, registered in this order.
import type { RouteRegistrar } from '../../types.ts';
import assets from './assets.ts';
import signIn from './sign-in.ts';
import getSession from './get-session.ts';
import signOut from './sign-out.ts';
import switchTeam from './switch-team.ts';
import listSessions from './list-sessions.ts';
import revokeSession from './revoke-session.ts';

export default [
  assets,
  signIn,
  getSession,
  signOut,
  switchTeam,
  listSessions,
  revokeSession,
] satisfies RouteRegistrar[];
