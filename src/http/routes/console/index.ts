// The routes of console/: one operation per file, registered in this order.
import type { RouteRegistrar } from '../../types.ts';
import assets from './assets.ts';
import signIn from './sign-in.ts';
import getSession from './get-session.ts';
import signOut from './sign-out.ts';

export default [
  assets,
  signIn,
  getSession,
  signOut,
] satisfies RouteRegistrar[];
