// The AUTOMATIC1111 / Forge web UI API as an image upstream (GANTRY_MEDIA_IMAGE_UPSTREAM_KIND
// =a1111): txt2img (`/sdapi/v1/txt2img`), img2img and inpainting (`/sdapi/v1/img2img`, the
// mask in `mask`), upscale (`/sdapi/v1/extra-single-image`). Images travel as base64 PNG in
// JSON; `info` comes back as a JSON string.
// The catalogue's names are the web UI's: the checkpoint (sd_name_in_api, its file name) and
// the VAE are selected by POST /sdapi/v1/options (sd_model_checkpoint, sd_vae; with
// CLIP_stop_at_last_layers and samples_format png), LoRAs are `<lora:name:strength>` in the
// prompt, embeddings their names in it. Options are the server's, not the request's (Forge
// ignores a request's override_settings for the checkpoint), so selecting and generating is
// one turn per upstream in this process: two tasks never interleave their options.
import { pngSize } from '../../lib/png.ts';
import { extraNetworkRefused, upstreamFailed } from './errors.ts';
import type { Generation } from './generation.ts';
import { post, type ImageUpstream } from './upstream.ts';

/** The source image of img2img and inpainting, and inpainting's mask and its settings. */
export interface A1111Init {
  image: Buffer;
  strength: number;
  mask?: { png: Buffer; blur: number; invert: boolean; fullRes: boolean; fullResPadding: number; noise: number } | undefined;
}

/** `user:password` is the web UI's --api-auth (HTTP Basic); any other key a bearer token for a proxy in front. */
function authorization(apiKey: string | undefined): string | undefined {
  if (!apiKey) return undefined;
  return apiKey.includes(':') ? `Basic ${Buffer.from(apiKey).toString('base64')}` : `Bearer ${apiKey}`;
}

/** The tail of each upstream's turns: select-then-generate runs alone per upstream. */
const turns = new Map<string, Promise<unknown>>();

function inTurn<T>(url: string, fn: () => Promise<T>): Promise<T> {
  const run = (turns.get(url) ?? Promise.resolve()).then(fn, fn);
  const tail = run.catch(() => undefined);
  turns.set(url, tail);
  void tail.then(() => {
    if (turns.get(url) === tail) turns.delete(url);
  });
  return run;
}

/**
 * The web UI reads `<type:args>` anywhere in a prompt or negative prompt as an extra network to
 * load (modules/extra_networks.py, `<(\w+):([^>]+)>`: `lora`, `lyco`, `hypernet`, and whatever
 * an extension registers), by file name, alias or hash: a prompt could load any team's private
 * LoRA on a shared web UI. It is refused, open or closed (an open `<lora:x` would close on the
 * tag Gantry appends), with a wider class than `\w` so no Unicode subtlety slips past: refused,
 * not stripped, because a stripped prompt draws something else than asked and is billed all
 * the same; nor checked against the catalogue, because the web UI also finds a LoRA by an alias
 * inside its file, and extensions add tag types Gantry cannot know. The catalogue's names are
 * written into the prompt too (LoRAs inside a tag, embeddings bare): none may hold `<`, `>` or `:`.
 */
const EXTRA_NETWORK = /<[^\s<>:]+:/u;
const TAG_CHARACTERS = /[<>:]/;

/** Refuse the web UI's extra-network syntax in the prompts and in the names written into them. */
export function refuseExtraNetworks(r: { prompt: string; negative_prompt?: string | undefined; loras: { model_name: string }[]; embeddings: { model_name: string }[] }): void {
  for (const [field, text] of [['request.prompt', r.prompt], ['request.negative_prompt', r.negative_prompt ?? '']] as const) {
    const found = EXTRA_NETWORK.exec(text);
    if (found) throw extraNetworkRefused(field, found[0]);
  }
  for (const [list, items] of [['loras', r.loras], ['embeddings', r.embeddings]] as const) {
    for (const [i, m] of items.entries()) {
      const found = TAG_CHARACTERS.exec(m.model_name);
      if (found) throw extraNetworkRefused(`request.${list}[${i}].model_name`, found[0]);
    }
  }
}

/** The prompt with the task's LoRAs and embeddings written the web UI's way. */
export function a1111Prompt(t: Pick<Generation, 'prompt' | 'loras' | 'embeddings'>): string {
  const loras = t.loras.map((l) => `<lora:${l.model_name}:${l.strength}>`);
  return [t.prompt, ...t.embeddings.map((e) => e.model_name), ...loras].join(', ');
}

/** `t.image_num` PNGs of `t.width` × `t.height`: txt2img, or img2img / inpainting when `init` is given. */
export async function a1111Generate(u: ImageUpstream, t: Generation & { width: number; height: number }, init: A1111Init | undefined, signal?: AbortSignal): Promise<Buffer[]> {
  const auth = authorization(u.apiKey);
  const body: Record<string, unknown> = {
    prompt: a1111Prompt(t), negative_prompt: t.negative_prompt, width: t.width, height: t.height, steps: t.steps, cfg_scale: t.guidance_scale,
    sampler_name: t.sampler_name, seed: t.seed, batch_size: t.image_num, n_iter: 1, send_images: true, save_images: false,
    override_settings: { return_grid: false },
  };
  if (init) {
    Object.assign(body, { init_images: [init.image.toString('base64')], denoising_strength: init.strength, resize_mode: 0 });
    if (init.mask) {
      const m = init.mask;
      Object.assign(body, {
        mask: m.png.toString('base64'), mask_blur: m.blur, inpainting_mask_invert: m.invert ? 1 : 0, inpainting_fill: 1,
        inpaint_full_res: m.fullRes, inpaint_full_res_padding: m.fullResPadding, initial_noise_multiplier: m.noise,
      });
    }
  }
  const options = {
    sd_model_checkpoint: t.model_name, sd_vae: t.sd_vae || 'Automatic', CLIP_stop_at_last_layers: t.clip_skip, samples_format: 'png',
  };
  const answer = await inTurn(u.url, async () => {
    await post(`${u.url}/sdapi/v1/options`, auth, options, signal);
    const res = await post(`${u.url}/sdapi/v1/${init ? 'img2img' : 'txt2img'}`, auth, body, signal);
    return await res.json().catch(() => undefined) as { images?: unknown; info?: unknown } | undefined;
  });
  const images = Array.isArray(answer?.images) ? answer.images : [];
  if (typeof answer?.info === 'string') checkInfo(answer.info);
  // a grid, when the server adds one despite return_grid, comes first: the task's images are the last ones
  const pngs = images.slice(-t.image_num).map(fromBase64);
  if (pngs.length !== t.image_num || pngs.some((b) => !b)) throw upstreamFailed(`the web UI did not answer ${t.image_num} PNG image(s) in images`);
  return pngs as Buffer[];
}

/** The web UI's upscaler names for the vendor's three (a catalogue upscaler is its file name without the extension). */
export const A1111_UPSCALERS: Record<string, string> = {
  RealESRGAN_x4plus_anime_6B: 'R-ESRGAN 4x+ Anime6B', RealESRNet_x4plus: 'R-ESRGAN 4x+', '4x-UltraSharp': '4x-UltraSharp',
};

/** The image `scale` times larger by the web UI's upscaler `upscaler`. */
export async function a1111Upscale(u: ImageUpstream, r: { image: Buffer; scale: number; upscaler: string }, signal?: AbortSignal): Promise<Buffer> {
  const res = await post(`${u.url}/sdapi/v1/extra-single-image`, authorization(u.apiKey), {
    image: r.image.toString('base64'), resize_mode: 0, upscaling_resize: r.scale, upscaler_1: r.upscaler,
  }, signal);
  const answer = await res.json().catch(() => undefined) as { image?: unknown } | undefined;
  const png = fromBase64(answer?.image);
  if (!png) throw upstreamFailed('the web UI did not answer a PNG image in image');
  return png;
}

function fromBase64(v: unknown): Buffer | undefined {
  if (typeof v !== 'string') return undefined;
  const b = Buffer.from(v.replace(/^data:image\/png;base64,/, ''), 'base64');
  return pngSize(b) ? b : undefined;
}

/** `info` is a JSON string by the API's contract; anything else is not the web UI answering. */
function checkInfo(info: string): void {
  try {
    JSON.parse(info);
  } catch {
    throw upstreamFailed('the web UI answered an info that is not JSON');
  }
}
