// The image edits of the vendor's API (POST /v3/cleanup, /v3/remove-background,
// /v3/replace-background, /v3/merge-face, /v3/remove-text): base64 images in, the edited
// image back in the answer (`{image_file, image_type}`), as the vendor's client expects.
// Each runs as a task all the same (tasks.ts runImageEdit: admitted, recorded, billed, its
// result readable at /v3/async/task-result). The simulator does the work (sim-edits.ts); an
// image upstream has no such operations, so with one configured they are refused
// (image-backends.ts).
import { createHash } from 'node:crypto';
import type { Rgba } from '../../lib/png-decode.ts';
import type { ImageEdit } from './codes.ts';
import { bad } from './errors.ts';
import { type ImageInput, readImageInput } from './image-input.ts';
import { offThread } from './pixel-pool.ts';

export const EDIT_LIMITS = { maxPrompt: 1024 } as const;

export interface ImageEditBody {
  image_file?: string | undefined;
  mask_file?: string | undefined;
  face_image_file?: string | undefined;
  prompt?: string | undefined;
}

/** What an edit's task keeps (its images are not kept: the edit runs while the request waits). */
export interface ImageEditTask {
  width: number;
  height: number;
  image_num: 1;
  prompt?: string;
}

/** A checked edit: its task, and its images with their headers judged (image-input.ts decodeImageInputs decodes them, once admitted). */
export interface CheckedEdit {
  task: ImageEditTask;
  inputs: Record<string, ImageInput>;
}

/** The fields each edit reads, in the vendor's names. */
const FIELDS: Record<ImageEdit, (keyof ImageEditBody)[]> = {
  cleanup: ['image_file', 'mask_file'],
  'remove-background': ['image_file'],
  'replace-background': ['image_file'],
  'merge-face': ['face_image_file', 'image_file'],
  'remove-text': ['image_file'],
};

export function checkImageEdit(op: ImageEdit, body: ImageEditBody): CheckedEdit {
  const inputs: Record<string, ImageInput> = {};
  for (const f of FIELDS[op]) inputs[f] = readImageInput(body[f], f);
  const target = inputs.image_file!;
  const task: ImageEditTask = { width: target.width, height: target.height, image_num: 1 };
  if (op === 'replace-background') {
    const prompt = (body.prompt ?? '').trim();
    if (!prompt || prompt.length > EDIT_LIMITS.maxPrompt) throw bad('prompt', `1-${EDIT_LIMITS.maxPrompt} characters: the new background`);
    task.prompt = prompt;
  }
  return { task, inputs };
}

/** The edited image. replace-background draws its background from a seed of the prompt: the same prompt, the same background. */
export function renderImageEdit(op: ImageEdit, task: ImageEditTask, i: Record<string, Rgba>): Promise<Rgba> {
  switch (op) {
    case 'cleanup': return offThread('simCleanup', i.image_file!, i.mask_file!);
    case 'remove-background': return offThread('simRemoveBackground', i.image_file!);
    case 'replace-background': return offThread('simReplaceBackground', i.image_file!, createHash('sha256').update(task.prompt ?? '').digest().readUInt32BE(0));
    case 'merge-face': return offThread('simMergeFace', i.face_image_file!, i.image_file!);
    case 'remove-text': return offThread('simRemoveText', i.image_file!);
  }
}
