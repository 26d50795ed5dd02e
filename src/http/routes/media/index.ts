// The routes of media/: one operation per file, registered in this order (the operator's, admin-*, last).
import type { RouteRegistrar } from '../../types.ts';
import listModels from './list-models.ts';
import uploadModel from './upload-model.ts';
import deleteModel from './delete-model.ts';
import getTaskResult from './get-task-result.ts';
import txt2img from './txt2img.ts';
import txt2speech from './txt2speech.ts';
import listTasks from './list-tasks.ts';
import adminDeleteModel from './admin-delete-model.ts';
import adminImportModel from './admin-import-model.ts';
import adminListModels from './admin-list-models.ts';

export default [
  listModels,
  uploadModel,
  deleteModel,
  getTaskResult,
  txt2img,
  txt2speech,
  listTasks,
  adminDeleteModel,
  adminImportModel,
  adminListModels,
] satisfies RouteRegistrar[];
