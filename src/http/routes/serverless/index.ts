// The routes of serverless/: one operation per file, registered in this order (the operator's, admin-*, last).
import type { RouteRegistrar } from '../../types.ts';
import listEndpoints from './list-endpoints.ts';
import getEndpoint from './get-endpoint.ts';
import createEndpoint from './create-endpoint.ts';
import updateEndpoint from './update-endpoint.ts';
import deleteEndpoint from './delete-endpoint.ts';
import getEndpointLimit from './get-endpoint-limit.ts';
import getEndpointLog from './get-endpoint-log.ts';
import getWorkerLog from './get-worker-log.ts';
import getEndpointMetrics from './get-endpoint-metrics.ts';
import adminGetLimits from './admin-get-limits.ts';
import adminSetLimits from './admin-set-limits.ts';

export default [
  listEndpoints,
  getEndpoint,
  createEndpoint,
  updateEndpoint,
  deleteEndpoint,
  getEndpointLimit,
  getEndpointLog,
  getWorkerLog,
  getEndpointMetrics,
  adminGetLimits,
  adminSetLimits,
] satisfies RouteRegistrar[];
