// The routes of payments/: one operation per file, registered in this order.
import type { RouteRegistrar } from '../../types.ts';
import startTopup from './start-topup.ts';
import listTopups from './list-topups.ts';
import stripeWebhook from './stripe-webhook.ts';

export default [
  startTopup,
  listTopups,
  stripeWebhook,
] satisfies RouteRegistrar[];
