// upscale (POST /v3/async/upscale, the vendor's v3 API: `{request: {model_name, image_base64,
// scale_factor}}`): an async task whose image is the source `scale_factor` times larger.
// model_name is one of the vendor's three upscalers or an upscaler record of the catalogue
// the team sees; the AUTOMATIC1111 upstream runs it by its web UI name, the simulator resamples.
import type { Ctx } from '../context.ts';
import type { Principal } from '../roles.ts';
import { encodePng } from '../../lib/png.ts';
import * as q from '../../store/media.ts';
import { MODEL_STATUS } from './codes.ts';
import { bad } from './errors.ts';
import { readImageInput } from './image-input.ts';
import { A1111_UPSCALERS, a1111Upscale } from './a1111.ts';
import { offThread } from './pixel-pool.ts';
import type { CheckedImageTask, InputReader } from './img2img.ts';
import type { ImageUpstream } from './upstream.ts';

export const UPSCALE_LIMITS = { minScale: 1, maxScale: 4, maxSide: 4096 } as const;

export interface UpscaleRequest {
  model_name: string;
  image_base64: string;
  scale_factor: number;
}

export interface UpscaleTask {
  model_name: string;
  /** the web UI's name of the upscaler */
  upscaler: string;
  scale_factor: number;
  width: number;
  height: number;
  image_num: 1;
  inputs: Record<string, string>;
}

export async function checkUpscale(ctx: Ctx, p: Principal, r: UpscaleRequest): Promise<CheckedImageTask<UpscaleTask>> {
  const L = UPSCALE_LIMITS;
  const src = readImageInput(r.image_base64, 'request.image_base64');
  const scale = r.scale_factor;
  if (!(typeof scale === 'number' && scale >= L.minScale && scale <= L.maxScale)) throw bad('request.scale_factor', `must be in [${L.minScale}, ${L.maxScale}]`);
  const width = Math.round(src.width * scale);
  const height = Math.round(src.height * scale);
  if (width > L.maxSide || height > L.maxSide) throw bad('request.scale_factor', `the result would be ${width}×${height}: at most ${L.maxSide} pixels a side`);
  const upscaler = await upscalerName(ctx, p, r.model_name);
  return { task: { model_name: r.model_name, upscaler, scale_factor: scale, width, height, image_num: 1 }, inputs: { image: src } };
}

/** One of the vendor's upscalers, or an available upscaler record the team sees (named by its file without the extension). */
async function upscalerName(ctx: Ctx, p: Principal, name: string): Promise<string> {
  const builtIn = A1111_UPSCALERS[name];
  if (builtIn) return builtIn;
  const rows = await q.findVisibleModelsByName(ctx.db, p.teamId, [name]);
  const candidates = rows.filter((m) => m.sdNameInApi === name && m.type === 'upscaler');
  const m = candidates.find((c) => c.teamId === p.teamId) ?? candidates.find((c) => c.teamId === null);
  if (!m) throw bad('request.model_name', `${Object.keys(A1111_UPSCALERS).join(', ')}, or the sd_name_in_api of an upscaler in the catalogue`);
  if (m.status !== MODEL_STATUS.available) throw bad('request.model_name', `upscaler ${name} is not available yet (status 0)`);
  return name.replace(/\.[^.]+$/, '');
}

export async function renderUpscale(t: UpscaleTask, upstream: ImageUpstream | undefined, read: InputReader, signal?: AbortSignal): Promise<Buffer[]> {
  const src = await read(t.inputs.image!);
  if (upstream) return [await a1111Upscale(upstream, { image: src.png, scale: t.scale_factor, upscaler: t.upscaler }, signal)];
  const img = await offThread('simUpscale', src.image, t.scale_factor);
  return [await encodePng(img.width, img.height, img.data, 4)];
}
