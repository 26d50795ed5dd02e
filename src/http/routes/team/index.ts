// The routes of team/: one operation per file, registered in this order.
import type { RouteRegistrar } from '../../types.ts';
import addMember from './add-member.ts';
import addSshKey from './add-ssh-key.ts';
import changeMemberRole from './change-member-role.ts';
import createKey from './create-key.ts';
import disableMember from './disable-member.ts';
import listKeys from './list-keys.ts';
import listMembers from './list-members.ts';
import listSshKeys from './list-ssh-keys.ts';
import removeSshKey from './remove-ssh-key.ts';
import revokeKey from './revoke-key.ts';

export default [
  addMember,
  addSshKey,
  changeMemberRole,
  createKey,
  disableMember,
  listKeys,
  listMembers,
  listSshKeys,
  removeSshKey,
  revokeKey,
] satisfies RouteRegistrar[];
