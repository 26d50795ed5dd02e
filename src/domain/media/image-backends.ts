// Which image operations run where. The simulator runs them all; an image upstream the
// operator set (GANTRY_MEDIA_IMAGE_UPSTREAM) runs what its kind has a counterpart for, and
// the rest are refused when asked (400, naming the operation and the upstream's kind), never
// quietly done by the simulator's pixel code and billed as the upstream's work.
import type { TaskOp } from './codes.ts';
import { notServed } from './errors.ts';
import type { ImageUpstream } from './upstream.ts';

const UPSTREAM_OPS: Record<ImageUpstream['kind'], readonly TaskOp[]> = {
  openai: ['txt2img'],
  a1111: ['txt2img', 'img2img', 'inpainting', 'upscale'],
};

const KIND_NAMES: Record<ImageUpstream['kind'], string> = {
  openai: 'an OpenAI-compatible images server',
  a1111: 'the AUTOMATIC1111/Forge web UI API',
};

/** Refuse `op` when the configured image upstream cannot run it. */
export function checkImageBackend(upstream: ImageUpstream | undefined, op: TaskOp): void {
  if (!upstream || UPSTREAM_OPS[upstream.kind].includes(op)) return;
  throw notServed(op, `this server's image upstream is ${KIND_NAMES[upstream.kind]} (GANTRY_MEDIA_IMAGE_UPSTREAM_KIND=${upstream.kind}), which has no ${op} operation; it runs ${UPSTREAM_OPS[upstream.kind].join(', ')}`);
}
