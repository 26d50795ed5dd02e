// img2img (POST /v3/async/img2img) and inpainting (POST /v3/async/inpainting), async tasks:
// a generation (txt2img.ts checkGeneration: the catalogue names, the sampler) from a source
// image, and for inpainting a mask (white: redrawn). img2img's output has the size asked
// for, inpainting's the source's. Rendered by the AUTOMATIC1111 upstream, or the simulator
// (sim-edits.ts); an OpenAI-compatible image upstream has no such operation (refused).
import type { Ctx } from '../context.ts';
import type { Principal } from '../roles.ts';
import type { Rgba } from '../../lib/png-decode.ts';
import { encodePng } from '../../lib/png.ts';
import { bad } from './errors.ts';
import { type ImageInput, readImageInput } from './image-input.ts';
import { checkGeneration, type Generation, type GenerationRequest, IMAGE_LIMITS, int } from './txt2img.ts';
import { offThread } from './pixel-pool.ts';
import { a1111Generate } from './a1111.ts';
import type { ImageUpstream } from './upstream.ts';

export interface Img2ImgRequest extends GenerationRequest {
  image_base64: string;
  width: number;
  height: number;
  strength?: number | undefined;
  controlnet?: { units?: unknown[] | undefined } | undefined;
  ip_adapters?: unknown[] | undefined;
}

export interface InpaintingRequest extends GenerationRequest {
  image_base64: string;
  mask_image_base64: string;
  mask_blur?: number | undefined;
  strength?: number | undefined;
  inpainting_full_res?: number | undefined;
  inpainting_full_res_padding?: number | undefined;
  inpainting_mask_invert?: number | undefined;
  initial_noise_multiplier?: number | undefined;
}

/** What the task keeps; its source images are stored blobs (`inputs`: name → key, set when the task is written). */
export interface Img2ImgTask extends Generation {
  width: number;
  height: number;
  strength: number;
  inputs: Record<string, string>;
}

export interface InpaintingTask extends Img2ImgTask {
  mask_blur: number;
  inpainting_mask_invert: boolean;
  inpainting_full_res: boolean;
  inpainting_full_res_padding: number;
  initial_noise_multiplier: number;
}

/** A checked request: the task (its inputs not yet stored) and the input images (headers judged) to decode and store. */
export interface CheckedImageTask<T> {
  task: Omit<T, 'inputs'>;
  inputs: Record<string, ImageInput>;
}

function strengthOf(v: number | undefined, def: number): number {
  const s = v ?? def;
  if (!(s >= 0 && s <= 1)) throw bad('request.strength', 'must be in [0, 1]');
  return s;
}

export async function checkImg2Img(ctx: Ctx, p: Principal, r: Img2ImgRequest): Promise<CheckedImageTask<Img2ImgTask>> {
  const src = readImageInput(r.image_base64, 'request.image_base64');
  const width = int(r.width, 'request.width', IMAGE_LIMITS.minSide, IMAGE_LIMITS.maxSide);
  const height = int(r.height, 'request.height', IMAGE_LIMITS.minSide, IMAGE_LIMITS.maxSide);
  if (r.controlnet?.units?.length) throw bad('request.controlnet', 'ControlNet units are not run by Gantry: leave controlnet out');
  if (r.ip_adapters?.length) throw bad('request.ip_adapters', 'IP-Adapters are not run by Gantry: leave ip_adapters out');
  const strength = strengthOf(r.strength, 0.5);
  return { task: { ...await checkGeneration(ctx, p, r), width, height, strength }, inputs: { image: src } };
}

export async function checkInpainting(ctx: Ctx, p: Principal, r: InpaintingRequest): Promise<CheckedImageTask<InpaintingTask>> {
  const src = readImageInput(r.image_base64, 'request.image_base64');
  const mask = readImageInput(r.mask_image_base64, 'request.mask_image_base64');
  const generation = await checkGeneration(ctx, p, r);
  const flag = (v: number | undefined, field: string) => int(v, field, 0, 1, 0) === 1;
  return {
    task: {
      ...generation, width: src.width, height: src.height, strength: strengthOf(r.strength, 1),
      mask_blur: int(r.mask_blur, 'request.mask_blur', 0, 64, 4), inpainting_mask_invert: flag(r.inpainting_mask_invert, 'request.inpainting_mask_invert'),
      inpainting_full_res: flag(r.inpainting_full_res, 'request.inpainting_full_res'),
      inpainting_full_res_padding: int(r.inpainting_full_res_padding, 'request.inpainting_full_res_padding', 0, 256, 32),
      initial_noise_multiplier: noise(r.initial_noise_multiplier),
    },
    inputs: { image: src, mask },
  };
}

function noise(v: number | undefined): number {
  const n = v ?? 1;
  if (!(n >= 0 && n <= 1.5)) throw bad('request.initial_noise_multiplier', 'must be in [0, 1.5]');
  return n;
}

/** Read a stored input back: its PNG bytes and pixels. */
export type InputReader = (key: string) => Promise<{ png: Buffer; image: Rgba }>;

/** The task's PNGs; image i of the simulator draws from seed + i. */
export async function renderImg2Img(t: Img2ImgTask | InpaintingTask, upstream: ImageUpstream | undefined, read: InputReader, signal?: AbortSignal): Promise<Buffer[]> {
  const src = await read(t.inputs.image!);
  const mask = t.inputs.mask ? await read(t.inputs.mask) : undefined;
  const i = t as InpaintingTask;
  if (upstream) {
    return a1111Generate(upstream, t, {
      image: src.png, strength: t.strength,
      mask: mask && { png: mask.png, blur: i.mask_blur, invert: i.inpainting_mask_invert, fullRes: i.inpainting_full_res, fullResPadding: i.inpainting_full_res_padding, noise: i.initial_noise_multiplier },
    }, signal);
  }
  const out: Buffer[] = [];
  for (let n = 0; n < t.image_num; n++) {
    const seed = (t.seed + n) >>> 0;
    const img = mask
      ? await offThread('simInpaint', src.image, mask.image, { seed, strength: t.strength, blur: i.mask_blur, invert: i.inpainting_mask_invert })
      : await offThread('simImg2Img', src.image, { width: t.width, height: t.height, seed, strength: t.strength });
    out.push(await encodePng(img.width, img.height, img.data, 4));
  }
  return out;
}
