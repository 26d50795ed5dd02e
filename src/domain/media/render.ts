// A queued task's outputs, rendered and stored under the task's own keys (the media.task job
// runs this, then ends the task: jobs/media-tasks.ts). A rerun after a crash writes the same
// bytes to the same keys (seeds and sources are fixed in the task), so only the end, with its
// charge, happens once. The image edits do not come here: their request renders them (tasks.ts
// runImageEdit).
import { buffer } from 'node:stream/consumers';
import type * as q from '../../store/media.ts';
import { TASK_TYPES } from './codes.ts';
import { decodeStoredImage } from './image-input.ts';
import { type Img2ImgTask, type InputReader, renderImg2Img } from './img2img.ts';
import { type MediaTasks, once, type TaskOutput, taskBlobKey } from './tasks.ts';
import { renderTxt2Img, type Txt2ImgTask } from './txt2img.ts';
import { renderTxt2Speech, type Txt2SpeechTask } from './txt2speech.ts';
import { renderUpscale, type UpscaleTask } from './upscale.ts';

export async function renderTaskOutputs(tasks: MediaTasks, task: q.MediaTaskRow, signal: AbortSignal): Promise<TaskOutput[]> {
  const c = tasks.config;
  const read: InputReader = async (key) => {
    const png = await buffer(await tasks.blobs.store.get(key));
    return { png, image: await decodeStoredImage(png) };
  };
  if (task.taskType === TASK_TYPES.txt2speech) {
    const wavs = await renderTxt2Speech(task.request as Txt2SpeechTask, c.ttsVoices, c.espeak, signal);
    return store(tasks, task, wavs, 'audio', 'wav', signal);
  }
  const pngs = task.taskType === TASK_TYPES.txt2img ? await renderTxt2Img(task.request as Txt2ImgTask, c.imageUpstream, signal)
    : task.taskType === TASK_TYPES.upscale ? await renderUpscale(task.request as UpscaleTask, c.imageUpstream, read, signal)
    : await renderImg2Img(task.request as Img2ImgTask, c.imageUpstream, read, signal);
  return store(tasks, task, pngs, 'image', 'png', signal);
}

async function store(tasks: MediaTasks, task: q.MediaTaskRow, files: Buffer[], kind: 'image' | 'audio', type: 'png' | 'wav', signal: AbortSignal): Promise<TaskOutput[]> {
  const contentType = kind === 'image' ? 'image/png' : 'audio/wav';
  return Promise.all(files.map(async (bytes, i) => {
    const key = taskBlobKey(task.teamId, task.id, `${i}.${type}`);
    await tasks.blobs.store.put(key, once(bytes), { contentType, signal });
    return { kind, key, type };
  }));
}
