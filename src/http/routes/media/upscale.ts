// POST /v3/async/upscale (the vendor's v3 API): an upscaling task (domain/media/upscale.ts) →
// {task_id}: the source image `scale_factor` times larger by the upscaler `model_name`.
import { Type } from 'typebox';
import { UPSCALE_LIMITS, type UpscaleRequest } from '../../../domain/media/upscale.ts';
import { createImageTask, type TaskExtra as Extra } from '../../../domain/media/tasks.ts';
import { errors, KeyBearer } from '../../schemas.ts';
import { principalOf, type App } from '../../types.ts';
import { imageRouteOptions } from './image-task-route.ts';
import { ImageBase64, TaskCreated, TaskExtra } from './schemas.ts';
import type { Media } from '../../../domain/media/context.ts';
import type { Config } from '../../../config.ts';

export default function upscale(app: App, s: { media: Media; config: Config }): void {
  app.post('/v3/async/upscale', {
    ...imageRouteOptions(s),
    schema: {
      tags: ['media'], summary: 'Upscale (async): a task whose result is the image, larger', security: KeyBearer,
      body: Type.Object({
        extra: TaskExtra('image'),
        request: Type.Object({
          model_name: Type.String({ minLength: 1, maxLength: 255, description: 'RealESRGAN_x4plus_anime_6B, RealESRNet_x4plus, 4x-UltraSharp, or an upscaler\'s sd_name_in_api' }),
          image_base64: ImageBase64('the source image'),
          scale_factor: Type.Number({ minimum: UPSCALE_LIMITS.minScale, maximum: UPSCALE_LIMITS.maxScale }),
        }),
      }),
      response: { 200: TaskCreated, ...errors(400, 401, 403) },
    },
  }, async (req) => {
    const body = req.body as { request: UpscaleRequest; extra?: Extra };
    return createImageTask(s.media.tasks, principalOf(req), { op: 'upscale', ...body });
  });
}
