// The routes of storage/: one operation per file, registered in this order (the operator's, admin-*, last).
import type { RouteRegistrar } from '../../types.ts';
import getStorage from './get-storage.ts';
import adminGetTeamStorage from './admin-get-team-storage.ts';
import adminSetStorageQuota from './admin-set-storage-quota.ts';

export default [
  getStorage,
  adminGetTeamStorage,
  adminSetStorageQuota,
] satisfies RouteRegistrar[];
