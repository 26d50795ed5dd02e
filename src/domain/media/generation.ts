// What an image generation is (txt2img, img2img and inpainting share it), as asked and as a
// task keeps it: the shapes the checks (txt2img.ts, img2img.ts) and the upstreams (a1111.ts)
// all read.
/** What every generation (txt2img, img2img, inpainting) names: the model, the prompt, the sampler. */
export interface GenerationRequest {
  model_name: string;
  prompt: string;
  negative_prompt?: string | undefined;
  image_num?: number | undefined;
  steps?: number | undefined;
  seed?: number | undefined;
  guidance_scale?: number | undefined;
  sampler_name?: string | undefined;
  clip_skip?: number | undefined;
  sd_vae?: string | undefined;
  loras?: { model_name: string; strength?: number | undefined }[] | undefined;
  embeddings?: { model_name: string }[] | undefined;
}

/** A generation as a task keeps it: the request as checked, the seed fixed (a rerun draws the same images). */
export interface Generation {
  model_name: string;
  prompt: string;
  negative_prompt: string;
  image_num: number;
  steps: number;
  seed: number;
  guidance_scale: number;
  sampler_name: string;
  clip_skip: number;
  sd_vae: string;
  loras: { model_name: string; strength: number }[];
  embeddings: { model_name: string }[];
}
