// POST /v3/async/img2img: an image-to-image task (domain/media/img2img.ts) → {task_id}: the
// source image (`image_base64`, a PNG) redrawn at `width` × `height` by the checkpoint,
// `strength` of the way (0 keeps the source, 1 ignores it). Admitted and held like txt2img.
import { Type } from 'typebox';
import type { Img2ImgRequest } from '../../../domain/media/img2img.ts';
import { createImageTask, type TaskExtra as Extra } from '../../../domain/media/tasks.ts';
import { errors, KeyBearer } from '../../schemas.ts';
import { principalOf, type App } from '../../types.ts';
import { imageRouteOptions } from './image-task-route.ts';
import { generationFields, ImageBase64, sizeFields, TaskCreated, TaskExtra } from './schemas.ts';
import type { Media } from '../../../domain/media/context.ts';
import type { Config } from '../../../config.ts';

export default function img2img(app: App, s: { media: Media; config: Config }): void {
  app.post('/v3/async/img2img', {
    ...imageRouteOptions(s),
    schema: {
      tags: ['media'], summary: 'Image to image (async): a task whose result has PNG images', security: KeyBearer,
      body: Type.Object({
        extra: TaskExtra('image'),
        request: Type.Object({
          ...generationFields, ...sizeFields,
          image_base64: ImageBase64('the source image'),
          strength: Type.Optional(Type.Number({ minimum: 0, maximum: 1, description: 'how far from the source: 0 keeps it, 1 ignores it (default 0.5)' })),
          controlnet: Type.Optional(Type.Object({ units: Type.Optional(Type.Array(Type.Unknown(), { maxItems: 8 })) }, { description: 'not run by Gantry: no units' })),
          ip_adapters: Type.Optional(Type.Array(Type.Unknown(), { maxItems: 8, description: 'not run by Gantry: empty' })),
        }),
      }),
      response: { 200: TaskCreated, ...errors(400, 401, 403) },
    },
  }, async (req) => {
    const body = req.body as { request: Img2ImgRequest; extra?: Extra };
    return createImageTask(s.media.tasks, principalOf(req), { op: 'img2img', ...body });
  });
}
