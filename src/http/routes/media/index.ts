// The routes of media/: one operation per file, registered in this order (the operator's, admin-*, last).
import type { RouteRegistrar } from '../../types.ts';
import listModels from './list-models.ts';
import uploadModel from './upload-model.ts';
import deleteModel from './delete-model.ts';
import getTaskResult from './get-task-result.ts';
import txt2img from './txt2img.ts';
import txt2speech from './txt2speech.ts';
import listTasks from './list-tasks.ts';
import img2img from './img2img.ts';
import inpainting from './inpainting.ts';
import upscale from './upscale.ts';
import cleanup from './cleanup.ts';
import removeBackground from './remove-background.ts';
import replaceBackground from './replace-background.ts';
import mergeFace from './merge-face.ts';
import removeText from './remove-text.ts';
import hunyuanVideoFast from './hunyuan-video-fast.ts';
import wanT2v from './wan-t2v.ts';
import txt2video from './txt2video.ts';
import img2video from './img2video.ts';
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
  img2img,
  inpainting,
  upscale,
  cleanup,
  removeBackground,
  replaceBackground,
  mergeFace,
  removeText,
  hunyuanVideoFast,
  wanT2v,
  txt2video,
  img2video,
  adminDeleteModel,
  adminImportModel,
  adminListModels,
] satisfies RouteRegistrar[];
