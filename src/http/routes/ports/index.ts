// The routes of ports/: one operation per file, registered in this order.
import type { RouteRegistrar } from '../../types.ts';
import proxy from './proxy.ts';

export default [
  proxy,
] satisfies RouteRegistrar[];
