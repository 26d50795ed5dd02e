// POST /v3/async/txt2img: a text-to-image task (domain/media/txt2img.ts) → {task_id}. The
// checkpoint, LoRAs, embeddings and VAE are catalogue records the team sees; the cost is
// admitted and held at once (BILLING_BALANCE_NOT_ENOUGH, BUDGET_EXCEEDED).
import { Type } from 'typebox';
import { IMAGE_LIMITS, type Txt2ImgRequest } from '../../../domain/media/txt2img.ts';
import { createTxt2ImgTask, type TaskExtra as Extra } from '../../../domain/media/tasks.ts';
import { errors, Int32, KeyBearer } from '../../schemas.ts';
import { principalOf, type App, type Services } from '../../types.ts';
import { TaskCreated, TaskExtra } from './schemas.ts';

const L = IMAGE_LIMITS;
const Name = (description: string) => Type.String({ minLength: 1, maxLength: 255, description });

export default function txt2img(app: App, s: Pick<Services, 'media'>): void {
  app.post('/v3/async/txt2img', {
    config: { family: 'media', auth: { kind: 'key', capability: 'callModels' } },
    schema: {
      tags: ['media'], summary: 'Text to image (async): a task whose result has PNG images', security: KeyBearer,
      body: Type.Object({
        extra: TaskExtra('image'),
        request: Type.Object({
          model_name: Name('sd_name_in_api of an available checkpoint (GET /v3/model)'),
          prompt: Type.String({ minLength: 1, maxLength: L.maxPrompt }),
          negative_prompt: Type.Optional(Type.String({ maxLength: L.maxPrompt })),
          width: Int32({ minimum: L.minSide, maximum: L.maxSide }),
          height: Int32({ minimum: L.minSide, maximum: L.maxSide }),
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
        }),
      }),
      response: { 200: TaskCreated, ...errors(400, 401, 403) },
    },
  }, async (req) => createTxt2ImgTask(s.media.tasks, principalOf(req), req.body as { request: Txt2ImgRequest; extra?: Extra }));
}
