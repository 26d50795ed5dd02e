// The routes of policy/: one operation per file, registered in this order.
import type { RouteRegistrar } from '../../types.ts';
import deletePolicy from './delete-policy.ts';
import getPolicy from './get-policy.ts';
import setPolicy from './set-policy.ts';
import getMemberPolicy from './get-member-policy.ts';
import setMemberPolicy from './set-member-policy.ts';
import deleteMemberPolicy from './delete-member-policy.ts';
import listKeyModels from './list-key-models.ts';

export default [
  deletePolicy,
  getPolicy,
  setPolicy,
  getMemberPolicy,
  setMemberPolicy,
  deleteMemberPolicy,
  listKeyModels,
] satisfies RouteRegistrar[];
