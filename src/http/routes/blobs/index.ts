// The routes of blobs/: one operation per file, registered in this order.
import type { RouteRegistrar } from '../../types.ts';
import getBlob from './get-blob.ts';

export default [
  getBlob,
] satisfies RouteRegistrar[];
