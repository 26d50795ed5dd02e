// txt2img (POST /v3/async/txt2img): the request checked against the catalogue (the
// checkpoint, LoRAs, embeddings and VAE must be available records the team sees; the same
// check serves img2img and inpainting, checkGeneration), its cost (images × the operator's
// price per image), and its rendering: PNGs from an OpenAI-compatible or AUTOMATIC1111
// upstream, or the simulator's, deterministic per seed.
import { randomInt } from 'node:crypto';
import type { Ctx } from '../context.ts';
import type { Principal } from '../roles.ts';
import { bad } from './errors.ts';
import { unitsToMicro } from '../../lib/money.ts';
import * as q from '../../store/media.ts';
import { MODEL_STATUS, type ModelType } from './codes.ts';
import { simImage } from './sim.ts';
import { upstreamImages, type ImageUpstream } from './upstream.ts';
import { a1111Generate, refuseExtraNetworks } from './a1111.ts';
import type { Generation, GenerationRequest } from './generation.ts';

export type { Generation, GenerationRequest };

export const IMAGE_LIMITS = {
  minSide: 128, maxSide: 2048, maxImages: 8, maxSteps: 100, maxPrompt: 1024, maxLoras: 5, maxEmbeddings: 5, maxSeed: 4_294_967_295,
} as const;

export interface Txt2ImgRequest extends GenerationRequest {
  width: number;
  height: number;
}

export interface Txt2ImgTask extends Generation {
  width: number;
  height: number;
}

/** An integer in [min, max]; `def` when absent (no `def`: required). */
export function int(v: number | undefined, field: string, min: number, max: number, def?: number): number {
  if (v === undefined) {
    if (def === undefined) throw bad(field, 'required');
    return def;
  }
  if (!Number.isInteger(v) || v < min || v > max) throw bad(field, `must be an integer in [${min}, ${max}]`);
  return v;
}

/** Check the request against the catalogue the team sees; the seed is drawn now when -1 or absent. */
export async function checkTxt2Img(ctx: Ctx, p: Principal, r: Txt2ImgRequest): Promise<Txt2ImgTask> {
  const width = int(r.width, 'request.width', IMAGE_LIMITS.minSide, IMAGE_LIMITS.maxSide);
  const height = int(r.height, 'request.height', IMAGE_LIMITS.minSide, IMAGE_LIMITS.maxSide);
  return { ...await checkGeneration(ctx, p, r), width, height };
}

/** The generation's fields (all but the size) checked, its names against the catalogue the team sees. */
export async function checkGeneration(ctx: Ctx, p: Principal, r: GenerationRequest): Promise<Generation> {
  const L = IMAGE_LIMITS;
  const prompt = (r.prompt ?? '').trim();
  if (!prompt || prompt.length > L.maxPrompt) throw bad('request.prompt', `1-${L.maxPrompt} characters`);
  if ((r.negative_prompt ?? '').length > L.maxPrompt) throw bad('request.negative_prompt', `at most ${L.maxPrompt} characters`);
  const loras = r.loras ?? [];
  const embeddings = r.embeddings ?? [];
  if (loras.length > L.maxLoras) throw bad('request.loras', `at most ${L.maxLoras}`);
  if (embeddings.length > L.maxEmbeddings) throw bad('request.embeddings', `at most ${L.maxEmbeddings}`);
  // whatever the image backend: a request means the same on the simulator as on the web UI
  refuseExtraNetworks({ prompt, negative_prompt: r.negative_prompt, loras, embeddings });
  for (const [i, l] of loras.entries()) {
    if (l.strength !== undefined && !(l.strength >= -2 && l.strength <= 2)) throw bad(`request.loras[${i}].strength`, 'must be in [-2, 2]');
  }
  const guidance = r.guidance_scale ?? 7.5;
  if (!(guidance >= 1 && guidance <= 30)) throw bad('request.guidance_scale', 'must be in [1, 30]');

  // every name must be an available record of its type that the team sees (its own first)
  const wanted: [field: string, name: string, type: ModelType][] = [
    ['request.model_name', r.model_name, 'checkpoint'],
    ...loras.map((l, i): [string, string, ModelType] => [`request.loras[${i}].model_name`, l.model_name, 'lora']),
    ...embeddings.map((e, i): [string, string, ModelType] => [`request.embeddings[${i}].model_name`, e.model_name, 'textualinversion']),
    ...(r.sd_vae ? [['request.sd_vae', r.sd_vae, 'vae'] as [string, string, ModelType]] : []),
  ];
  const rows = await q.findVisibleModelsByName(ctx.db, p.teamId, [...new Set(wanted.map((w) => w[1]))]);
  for (const [field, name, type] of wanted) {
    const candidates = rows.filter((m) => m.sdNameInApi === name && m.type === type);
    const m = candidates.find((c) => c.teamId === p.teamId) ?? candidates.find((c) => c.teamId === null);
    if (!m) throw bad(field, `no ${type} named ${name} in the catalogue (GET /v3/model: sd_name_in_api of a ${type})`);
    if (m.status !== MODEL_STATUS.available) throw bad(field, `${type} ${name} is not available yet (status 0)`);
  }
  const seed = r.seed === undefined || r.seed === -1 ? randomInt(0, 2 ** 32 - 1) : int(r.seed, 'request.seed', 0, L.maxSeed);
  return {
    model_name: r.model_name, prompt, negative_prompt: r.negative_prompt ?? '',
    image_num: int(r.image_num, 'request.image_num', 1, L.maxImages, 1), steps: int(r.steps, 'request.steps', 1, L.maxSteps, 20),
    seed, guidance_scale: guidance, sampler_name: r.sampler_name || 'Euler a', clip_skip: int(r.clip_skip, 'request.clip_skip', 1, 12, 1),
    sd_vae: r.sd_vae ?? '', loras: loras.map((l) => ({ model_name: l.model_name, strength: l.strength ?? 1 })), embeddings,
  };
}

/** images × the operator's price per image (every image operation's cost). */
export function imagesCostMicro(t: { image_num: number }, pricePerImageUnits: bigint): bigint {
  return unitsToMicro(pricePerImageUnits) * BigInt(t.image_num);
}

/** The task's PNGs: image i of the simulator is drawn from seed + i. */
export async function renderTxt2Img(t: Txt2ImgTask, upstream: ImageUpstream | undefined, signal?: AbortSignal): Promise<Buffer[]> {
  if (upstream?.kind === 'a1111') return a1111Generate(upstream, t, undefined, signal);
  if (upstream) {
    return upstreamImages(upstream, { model: t.model_name, prompt: t.prompt, n: t.image_num, width: t.width, height: t.height, seed: t.seed }, signal);
  }
  const out: Buffer[] = [];
  for (let i = 0; i < t.image_num; i++) out.push(await simImage(t.width, t.height, (t.seed + i) >>> 0));
  return out;
}
