// The routes of files/: one operation per file, registered in this order.
import type { RouteRegistrar } from '../../types.ts';
import uploadFile from './upload-file.ts';
import listFiles from './list-files.ts';
import getFile from './get-file.ts';
import deleteFile from './delete-file.ts';
import getFileContent from './get-file-content.ts';

export default [
  uploadFile,
  listFiles,
  getFile,
  deleteFile,
  getFileContent,
] satisfies RouteRegistrar[];
