// The routes of batches/: one operation per file, registered in this order.
import type { RouteRegistrar } from '../../types.ts';
import createBatch from './create-batch.ts';
import getBatch from './get-batch.ts';
import cancelBatch from './cancel-batch.ts';
import listBatches from './list-batches.ts';

export default [
  createBatch,
  getBatch,
  cancelBatch,
  listBatches,
] satisfies RouteRegistrar[];
