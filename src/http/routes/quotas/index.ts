// The routes of quotas/: one operation per file, registered in this order.
import type { RouteRegistrar } from '../../types.ts';
import listQuotas from './list-quotas.ts';

export default [
  listQuotas,
] satisfies RouteRegistrar[];
