// Shapes of the media routes (interface.md "Media model record", compat.md "Media and async tasks").
import { Type } from 'typebox';
import { MODEL_SOURCES, MODEL_TYPES } from '../../../domain/media/codes.ts';
import { IMAGE_LIMITS } from '../../../domain/media/txt2img.ts';
import { Int32 } from '../../schemas.ts';

export const MediaModelRecord = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  hash_sha256: Type.String(),
  sd_name: Type.String({ description: 'file name' }),
  type: Type.Object({ name: Type.String(), display_name: Type.String() }),
  categories: Type.Array(Type.String()),
  status: Type.Integer({ description: '0 unavailable, 1 available' }),
  download_url: Type.String({ description: 'a signed link, valid download_url_ttl seconds; empty while status is 0' }),
  tags: Type.Array(Type.String()),
  cover_url: Type.String(),
  source: Type.String({ description: 'civitai | training | uploading' }),
  base_model: Type.String(),
  base_model_type: Type.String({ description: 'Standard | Inpainting' }),
  download_url_ttl: Type.Integer(),
  sd_name_in_api: Type.String({ description: 'the name tasks use (txt2img model_name, loras, embeddings)' }),
  is_sdxl: Type.Boolean(),
});

/** The fields of an upload or import, before the file (multipart; documented, read by the domain). */
export const UPLOAD_FIELDS_DOC = 'multipart fields name, type, base_model (and base_model_type, is_sdxl, tags, categories, cover_url, sd_name), then file';

export const ModelIdParams = Type.Object({ id: Type.String({ pattern: '^[0-9]{1,10}$', description: 'a record id' }) });

export const TaskStatus = Type.String({ enum: ['TASK_STATUS_QUEUED', 'TASK_STATUS_PROCESSING', 'TASK_STATUS_SUCCEED', 'TASK_STATUS_FAILED'] });

export const TaskResult = Type.Object({
  extra: Type.Record(Type.String(), Type.Unknown(), { description: 'txt2img, img2img, inpainting: the seed used' }),
  task: Type.Object({
    task_id: Type.String(), status: TaskStatus, reason: Type.String(), task_type: Type.String({ description: 'TXT_TO_IMG | TXT_TO_SPEECH | IMG_TO_IMG | INPAINTING | UPSCALE | CLEANUP | REMOVE_BACKGROUND | REPLACE_BACKGROUND | MERGE_FACE | REMOVE_TEXT' }),
    eta: Type.Integer({ description: 'seconds, an estimate' }), progress_percent: Type.Integer(),
  }),
  images: Type.Array(Type.Object({ image_url: Type.String(), image_url_ttl: Type.Integer(), image_type: Type.String(), nsfw_detection_result: Type.Null() })),
  videos: Type.Array(Type.Unknown()),
  audios: Type.Array(Type.Object({ audio_url: Type.String(), audio_url_ttl: Type.Integer(), audio_type: Type.String() })),
});

export const TaskCreated = Type.Object({ task_id: Type.String() });

const Webhook = Type.Object({
  url: Type.String({ minLength: 1, maxLength: 2048 }),
  test_mode: Type.Optional(Type.Object({
    enabled: Type.Optional(Type.Boolean()),
    return_task_status: Type.Optional(TaskStatus),
  })),
});

/** `extra` of an async request: response types and the per-task webhook. */
export function TaskExtra(kind: 'image' | 'audio') {
  return Type.Optional(Type.Object({
    ...(kind === 'image'
      ? { response_image_type: Type.Optional(Type.String({ maxLength: 16, description: 'png' })), enable_nsfw_detection: Type.Optional(Type.Boolean()) }
      : { response_audio_type: Type.Optional(Type.String({ maxLength: 16, description: 'wav' })) }),
    webhook: Type.Optional(Webhook),
  }));
}

const param = (description: string, maxLength = 64) => Type.Optional(Type.String({ maxLength, description }));

/** The catalogue's filters and cursor (GET /v3/model, and the operator's listing of public records). */
export const catalogueQueryFields = {
  'filter.source': param(`${MODEL_SOURCES.join(' | ')} (comma-separated for several)`),
  'filter.types': param(`${MODEL_TYPES.join(' | ')} (comma-separated for several)`, 128),
  'filter.is_sdxl': param('true: only SDXL; false: no SDXL; unset: both'),
  'filter.query': param('searched in sd_name, name and tags', 255),
  'filter.is_inpainting': param('true: only inpainting checkpoints'),
  'pagination.limit': param('records per page, (0, 100]; default 20'),
  'pagination.cursor': param('next_cursor of the previous page; empty: from the beginning'),
};

export const visibilityField = { 'filter.visibility': param('public | private; all when unset') };

/** A base64 PNG in a request (the vendor's `image_base64`, `image_file`…); its content is judged by the domain (domain/media/image-input.ts). */
export const ImageBase64 = (description: string) => Type.String({ minLength: 1, maxLength: 64 * 1024 * 1024, description: `${description}: a base64-encoded PNG (a data: URL prefix is allowed), at most 2048×2048` });

/** An image edit's answer: the vendor's `{image_file, image_type}`, and the task that records it. */
export const ImageEditAnswer = Type.Object({
  image_file: Type.String({ description: 'the edited image, base64 PNG' }),
  image_type: Type.String({ description: 'png' }),
  task_id: Type.String({ description: 'the task that ran it (GET /v3/async/task-result)' }),
});

/** `extra` of an image edit: the image type only (it answers with the image, so no webhook). */
export const EditExtra = Type.Optional(Type.Object({
  response_image_type: Type.Optional(Type.String({ maxLength: 16, description: 'png' })),
  enterprise_plan: Type.Optional(Type.Object({ enabled: Type.Optional(Type.Boolean()) })),
}));

const L = IMAGE_LIMITS;
const Name = (description: string) => Type.String({ minLength: 1, maxLength: 255, description });

/** What every generation (txt2img, img2img, inpainting) names: the model, the prompt, the sampler (domain/media/txt2img.ts). */
export const generationFields = {
  model_name: Name('sd_name_in_api of an available checkpoint (GET /v3/model)'),
  prompt: Type.String({ minLength: 1, maxLength: L.maxPrompt }),
  negative_prompt: Type.Optional(Type.String({ maxLength: L.maxPrompt })),
  image_num: Type.Optional(Int32({ minimum: 1, maximum: L.maxImages })),
  steps: Type.Optional(Int32({ minimum: 1, maximum: L.maxSteps })),
  seed: Type.Optional(Type.Integer({ minimum: -1, maximum: L.maxSeed, description: '-1 or absent: a random seed (shown in the result\'s extra.seed)' })),
  guidance_scale: Type.Optional(Type.Number({ minimum: 1, maximum: 30 })),
  sampler_name: Type.Optional(Type.String({ maxLength: 64 })),
  clip_skip: Type.Optional(Int32({ minimum: 1, maximum: 12 })),
  sd_vae: Type.Optional(Name('sd_name_in_api of a VAE')),
  loras: Type.Optional(Type.Array(Type.Object({
    model_name: Name('sd_name_in_api of a LoRA'), strength: Type.Optional(Type.Number({ minimum: -2, maximum: 2 })),
  }), { maxItems: L.maxLoras })),
  embeddings: Type.Optional(Type.Array(Type.Object({ model_name: Name('sd_name_in_api of an embedding') }), { maxItems: L.maxEmbeddings })),
};

/** An output size (txt2img, img2img). */
export const sizeFields = {
  width: Int32({ minimum: L.minSide, maximum: L.maxSide }),
  height: Int32({ minimum: L.minSide, maximum: L.maxSide }),
};
