// POST /v3/async/txt2img: a text-to-image task (domain/media/txt2img.ts) → {task_id}. The
// checkpoint, LoRAs, embeddings and VAE are catalogue records the team sees; the cost is
// admitted and held at once (BILLING_BALANCE_NOT_ENOUGH, BUDGET_EXCEEDED).
import { Type } from 'typebox';
import type { Txt2ImgRequest } from '../../../domain/media/txt2img.ts';
import { createTxt2ImgTask, type TaskExtra as Extra } from '../../../domain/media/tasks.ts';
import { errors, KeyBearer } from '../../schemas.ts';
import { principalOf, type App } from '../../types.ts';
import { generationFields, sizeFields, TaskCreated, TaskExtra } from './schemas.ts';
import type { Media } from '../../../domain/media/context.ts';

export default function txt2img(app: App, s: { media: Media }): void {
  app.post('/v3/async/txt2img', {
    config: { family: 'media', auth: { kind: 'key', capability: 'callModels' } },
    schema: {
      tags: ['media'], summary: 'Text to image (async): a task whose result has PNG images', security: KeyBearer,
      body: Type.Object({
        extra: TaskExtra('image'),
        request: Type.Object({ ...generationFields, ...sizeFields }),
      }),
      response: { 200: TaskCreated, ...errors(400, 401, 403) },
    },
  }, async (req) => createTxt2ImgTask(s.media.tasks, principalOf(req), req.body as { request: Txt2ImgRequest; extra?: Extra }));
}
