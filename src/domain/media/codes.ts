// The closed sets of the media area (interface.md "Media model record", compat.md "Media and
// async tasks"), in one place: the catalogue, tasks, routes and schemas import them.
export const MODEL_TYPES = ['checkpoint', 'lora', 'vae', 'controlnet', 'upscaler', 'textualinversion'] as const;
export type ModelType = (typeof MODEL_TYPES)[number];

export const MODEL_TYPE_DISPLAY: Record<ModelType, string> = {
  checkpoint: 'Checkpoint', lora: 'LoRA', vae: 'VAE', controlnet: 'ControlNet', upscaler: 'Upscaler', textualinversion: 'Textual Inversion',
};

export const MODEL_SOURCES = ['civitai', 'training', 'uploading'] as const;
export type ModelSource = (typeof MODEL_SOURCES)[number];

export const BASE_MODEL_TYPES = ['Standard', 'Inpainting'] as const;

export const VISIBILITIES = ['public', 'private'] as const;

/** A record's file is stored and hashed (1) or not yet (0). */
export const MODEL_STATUS = { unavailable: 0, available: 1 } as const;

export const TASK_STATUSES = ['TASK_STATUS_QUEUED', 'TASK_STATUS_PROCESSING', 'TASK_STATUS_SUCCEED', 'TASK_STATUS_FAILED'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];
export const ENDED_TASK_STATUSES = ['TASK_STATUS_SUCCEED', 'TASK_STATUS_FAILED'] as const;

/**
 * Each task's operation (its name in the path, /v3/async/<op> or /v3/<op>) and its
 * task_type. The image edits (IMAGE_EDITS) answer at once with the image, as the vendor's
 * API does; the others answer a task id.
 */
export const TASK_TYPES = {
  txt2img: 'TXT_TO_IMG', txt2speech: 'TXT_TO_SPEECH', img2img: 'IMG_TO_IMG', inpainting: 'INPAINTING', upscale: 'UPSCALE',
  cleanup: 'CLEANUP', 'remove-background': 'REMOVE_BACKGROUND', 'replace-background': 'REPLACE_BACKGROUND',
  'merge-face': 'MERGE_FACE', 'remove-text': 'REMOVE_TEXT',
} as const;
export type TaskOp = keyof typeof TASK_TYPES;
export type TaskType = (typeof TASK_TYPES)[TaskOp];

export const IMAGE_EDITS = ['cleanup', 'remove-background', 'replace-background', 'merge-face', 'remove-text'] as const satisfies readonly TaskOp[];
export type ImageEdit = (typeof IMAGE_EDITS)[number];

/** The operation of a task type (a bill row's product id). */
export const opOfType = (type: string): TaskOp | undefined => (Object.keys(TASK_TYPES) as TaskOp[]).find((op) => TASK_TYPES[op] === type);

/** Video operations the vendor's client calls; Gantry refuses them (docs/compat-decisions.md). */
export const VIDEO_OPS = ['hunyuan-video-fast', 'wan-t2v', 'txt2video', 'img2video'] as const;
export type VideoOp = (typeof VIDEO_OPS)[number];

/** Bill rows of media tasks: their own category (billing/bills.ts USAGE_CATEGORIES), billed per use. */
export const MEDIA_BILL_CATEGORY = 'media';

/**
 * The name a task uses for a record: a checkpoint, VAE, ControlNet or upscaler by its file
 * name; a LoRA or an embedding by its file name without the extension (as prompts name them).
 */
export function sdNameInApi(type: ModelType, sdName: string): string {
  if (type !== 'lora' && type !== 'textualinversion') return sdName;
  const dot = sdName.lastIndexOf('.');
  return dot > 0 ? sdName.slice(0, dot) : sdName;
}
