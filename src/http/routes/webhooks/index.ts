// The routes of webhooks/: one operation per file, registered in this order.
import type { RouteRegistrar } from '../../types.ts';
import getSecret from './get-secret.ts';
import rotateSecret from './rotate-secret.ts';
import createEndpoint from './create-endpoint.ts';
import listEndpoints from './list-endpoints.ts';
import getEndpoint from './get-endpoint.ts';
import updateEndpoint from './update-endpoint.ts';
import deleteEndpoint from './delete-endpoint.ts';
import listDeliveries from './list-deliveries.ts';
import retryDelivery from './retry-delivery.ts';
import testEndpoint from './test-endpoint.ts';
import listEvents from './list-events.ts';

export default [
  getSecret,
  rotateSecret,
  createEndpoint,
  listEndpoints,
  getEndpoint,
  updateEndpoint,
  deleteEndpoint,
  listDeliveries,
  retryDelivery,
  testEndpoint,
  listEvents,
] satisfies RouteRegistrar[];
