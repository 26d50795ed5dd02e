// The demo catalogue a first start ships (cli/commands.ts): 31 public records of all six types, SDXL
// and not, inpainting checkpoints, all three sources. Their files are small generated blobs:
// valid safetensors files with no tensors, whose metadata names the record, so a download
// hashes to hash_sha256 like any other record's.
import type { Ctx } from '../context.ts';
import type { BlobStore } from '../../store/blobs/index.ts';
import { checkModelInput, importPublicModels, type ModelInput } from './catalogue.ts';

type Demo = [type: string, sdName: string, opts?: { sdxl?: boolean; inpainting?: boolean; source?: string; base?: string; tags?: string[] }];

const DEMO: Demo[] = [
  ['checkpoint', 'sd_xl_base_1.0.safetensors', { sdxl: true, base: 'SDXL 1.0', tags: ['base', 'photo'] }],
  ['checkpoint', 'juggernautXL_v9.safetensors', { sdxl: true, base: 'SDXL 1.0', tags: ['photorealistic'] }],
  ['checkpoint', 'dreamshaper_8.safetensors', { base: 'SD 1.5', tags: ['fantasy', 'art'] }],
  ['checkpoint', 'realisticVisionV51.safetensors', { base: 'SD 1.5', tags: ['photorealistic', 'portrait'] }],
  ['checkpoint', 'sd-v1-5-inpainting.ckpt', { inpainting: true, base: 'SD 1.5', tags: ['inpainting'] }],
  ['checkpoint', 'sd_xl_inpainting_0.1.safetensors', { sdxl: true, inpainting: true, base: 'SDXL 1.0', tags: ['inpainting'] }],
  ['checkpoint', 'studio_portraits_trained.safetensors', { source: 'training', base: 'SD 1.5', tags: ['portrait'] }],
  ['checkpoint', 'community_anime_v5.safetensors', { source: 'uploading', base: 'SD 1.5', tags: ['anime'] }],
  ['lora', 'add_detail.safetensors', { base: 'SD 1.5', tags: ['detail'] }],
  ['lora', 'more_details_xl.safetensors', { sdxl: true, base: 'SDXL 1.0', tags: ['detail'] }],
  ['lora', 'pixel_art_xl.safetensors', { sdxl: true, base: 'SDXL 1.0', tags: ['pixel art', 'style'] }],
  ['lora', 'watercolor_style.safetensors', { base: 'SD 1.5', tags: ['watercolor', 'style'] }],
  ['lora', 'lowpoly_world.safetensors', { base: 'SD 1.5', tags: ['3d', 'style'] }],
  ['lora', 'film_grain_trained.safetensors', { source: 'training', sdxl: true, base: 'SDXL 1.0', tags: ['film', 'photo'] }],
  ['vae', 'vae-ft-mse-840000-ema-pruned.safetensors', { base: 'SD 1.5' }],
  ['vae', 'sdxl_vae.safetensors', { sdxl: true, base: 'SDXL 1.0' }],
  ['vae', 'kl-f8-anime2.ckpt', { source: 'uploading', base: 'SD 1.5', tags: ['anime'] }],
  ['controlnet', 'control_v11p_sd15_canny.pth', { base: 'SD 1.5', tags: ['canny', 'edges'] }],
  ['controlnet', 'control_v11f1p_sd15_depth.pth', { base: 'SD 1.5', tags: ['depth'] }],
  ['controlnet', 'control_v11p_sd15_openpose.pth', { base: 'SD 1.5', tags: ['pose'] }],
  ['controlnet', 'control_v11p_sd15_inpaint.pth', { base: 'SD 1.5', tags: ['inpainting'] }],
  ['controlnet', 'controlnet-canny-sdxl-1.0.safetensors', { sdxl: true, base: 'SDXL 1.0', tags: ['canny', 'edges'] }],
  ['upscaler', 'RealESRGAN_x4plus.pth', { tags: ['4x'] }],
  ['upscaler', 'RealESRGAN_x4plus_anime_6B.pth', { tags: ['4x', 'anime'] }],
  ['upscaler', '4x-UltraSharp.pth', { tags: ['4x', 'sharp'] }],
  ['upscaler', 'ESRGAN_4x.pth', { source: 'training', tags: ['4x'] }],
  ['textualinversion', 'easynegative.safetensors', { base: 'SD 1.5', tags: ['negative'] }],
  ['textualinversion', 'badhandv4.pt', { base: 'SD 1.5', tags: ['negative', 'hands'] }],
  ['textualinversion', 'ng_deepnegative_v1_75t.pt', { base: 'SD 1.5', tags: ['negative'] }],
  ['textualinversion', 'FastNegativeV2.pt', { source: 'uploading', base: 'SD 1.5', tags: ['negative'] }],
  ['textualinversion', 'negativeXL_D.safetensors', { sdxl: true, base: 'SDXL 1.0', tags: ['negative'] }],
];

/** A safetensors file with no tensors: an 8-byte little-endian header length, then the JSON header. */
export function demoFileBytes(sdName: string): Buffer {
  const header = Buffer.from(JSON.stringify({ __metadata__: { format: 'pt', gantry_demo: sdName } }), 'utf8');
  const len = Buffer.alloc(8);
  len.writeBigUInt64LE(BigInt(header.length));
  return Buffer.concat([len, header]);
}

export function demoInputs(): ModelInput[] {
  return DEMO.map(([type, sdName, o = {}]) => ({
    type, sd_name: sdName, name: sdName.replace(/\.[^.]+$/, '').replace(/[_-]+/g, ' '),
    source: o.source ?? 'civitai', base_model: o.base ?? '', base_model_type: o.inpainting ? 'Inpainting' : 'Standard',
    is_sdxl: o.sdxl ?? false, tags: o.tags ?? [], categories: [type === 'checkpoint' ? 'base model' : 'addon'],
  }));
}

async function* bytesOf(b: Buffer): AsyncGenerator<Uint8Array> {
  yield b;
}

/** Import the demo records (a record already there under the same name is replaced). Returns how many. */
export async function seedMediaDemo(ctx: Ctx, blobs: BlobStore): Promise<number> {
  const models = demoInputs().map((input) => checkModelInput(input, input.sd_name!, { public: true }));
  await importPublicModels(ctx, blobs, models.map((model) => ({ model, stream: bytesOf(demoFileBytes(model.sdName)) })));
  return models.length;
}
