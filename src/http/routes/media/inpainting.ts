// POST /v3/async/inpainting: an inpainting task (domain/media/img2img.ts) → {task_id}: the
// region of the source image where the mask is white (`inpainting_mask_invert`: black) is
// redrawn by the checkpoint, the rest kept; the result has the source's size.
import { Type } from 'typebox';
import type { InpaintingRequest } from '../../../domain/media/img2img.ts';
import { createImageTask, type TaskExtra as Extra } from '../../../domain/media/tasks.ts';
import { errors, Int32, KeyBearer } from '../../schemas.ts';
import { principalOf, type App } from '../../types.ts';
import { imageRouteOptions } from './image-task-route.ts';
import { generationFields, ImageBase64, TaskCreated, TaskExtra } from './schemas.ts';
import type { Media } from '../../../domain/media/context.ts';
import type { Config } from '../../../config.ts';

const Flag = (description: string) => Type.Optional(Type.Integer({ minimum: 0, maximum: 1, description }));

export default function inpainting(app: App, s: { media: Media; config: Config }): void {
  app.post('/v3/async/inpainting', {
    ...imageRouteOptions(s),
    schema: {
      tags: ['media'], summary: 'Inpainting (async): the masked region redrawn, a task whose result has PNG images', security: KeyBearer,
      body: Type.Object({
        extra: TaskExtra('image'),
        request: Type.Object({
          ...generationFields,
          image_base64: ImageBase64('the source image'),
          mask_image_base64: ImageBase64('the mask: white is redrawn, black kept'),
          mask_blur: Type.Optional(Int32({ minimum: 0, maximum: 64, description: 'pixels over which the mask\'s edge is softened (default 4)' })),
          strength: Type.Optional(Type.Number({ minimum: 0, maximum: 1, description: 'how far the region moves from the source (default 1)' })),
          inpainting_full_res: Flag('1: the region is drawn at full resolution (upstream)'),
          inpainting_full_res_padding: Type.Optional(Int32({ minimum: 0, maximum: 256 })),
          inpainting_mask_invert: Flag('1: black is redrawn, white kept'),
          initial_noise_multiplier: Type.Optional(Type.Number({ minimum: 0, maximum: 1.5 })),
        }),
      }),
      response: { 200: TaskCreated, ...errors(400, 401, 403) },
    },
  }, async (req) => {
    const body = req.body as { request: InpaintingRequest; extra?: Extra };
    return createImageTask(s.media.tasks, principalOf(req), { op: 'inpainting', ...body });
  });
}
