// The routes of system/: one operation per file, registered in this order.
import type { RouteRegistrar } from '../../types.ts';
import healthz from './healthz.ts';
import metrics from './metrics.ts';
import readyz from './readyz.ts';

export default [
  healthz,
  metrics,
  readyz,
] satisfies RouteRegistrar[];
