// The routes of system/: one operation per file, registered in this order.
import type { RouteRegistrar } from '../../types.ts';
import healthz from './healthz.ts';
import metrics from './metrics.ts';
import readyz from './readyz.ts';
import root from './root.ts';

export default [
  healthz,
  metrics,
  readyz,
  root,
] satisfies RouteRegistrar[];
