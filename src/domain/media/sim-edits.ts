// The simulator's image operations: real work on the input's pixels, no model. New content
// is the simulator's seeded picture (sim.ts simPixels), so results are checkable and the same
// for the same request: img2img mixes it into the resized input by `strength`; inpainting
// puts it in the masked region only; cleanup and remove-text fill a region from what
// surrounds it; remove-background makes the background (what the border's colour reaches)
// transparent; replace-background draws the prompt's picture behind the kept foreground;
// merge-face puts the face image's subject in the place of the target's; upscale resamples.
import type { Rgba } from '../../lib/png-decode.ts';
import { boundingBox, crop, fillRegion, foreground, fromRgb, maskFrom, mix, resize, thinMarks } from './raster.ts';
import { simPixels } from './sim.ts';

const picture = (width: number, height: number, seed: number) => fromRgb(width, height, simPixels(width, height, seed));

/** The input at `width` × `height`, `strength` of the way to the seed's picture (0: the input resized, 1: the picture). */
export function simImg2Img(src: Rgba, o: { width: number; height: number; seed: number; strength: number }): Rgba {
  const base = resize(src, o.width, o.height);
  return mix(base, picture(o.width, o.height, o.seed), new Float32Array(o.width * o.height).fill(o.strength));
}

/** New content (the seed's picture, by `strength`) where the mask is white; every other pixel as it was. */
export function simInpaint(src: Rgba, maskImage: Rgba, o: { seed: number; strength: number; blur: number; invert: boolean }): Rgba {
  const mask = maskFrom(maskImage, src.width, src.height, { blur: o.blur, invert: o.invert });
  for (let p = 0; p < mask.length; p++) mask[p]! *= o.strength;
  return mix(src, picture(src.width, src.height, o.seed), mask);
}

/** The masked region filled from its surroundings (what was there is gone). */
export function simCleanup(src: Rgba, maskImage: Rgba): Rgba {
  return fillRegion(src, maskFrom(maskImage, src.width, src.height));
}

/** Thin marks (text) filled from their surroundings. */
export function simRemoveText(src: Rgba): Rgba {
  return fillRegion(src, thinMarks(src));
}

/** The background transparent (alpha 0), the foreground as it was (alpha kept). */
export function simRemoveBackground(src: Rgba): Rgba {
  const fg = foreground(src);
  const out = { ...src, data: src.data.slice() };
  for (let p = 0; p < fg.length; p++) if (fg[p] === 0) out.data[p * 4 + 3] = 0;
  return out;
}

/** The foreground kept, the background the picture of `seed` (the prompt's), opaque. */
export function simReplaceBackground(src: Rgba, seed: number): Rgba {
  const fg = foreground(src);
  const out = mix(picture(src.width, src.height, seed), src, fg);
  for (let p = 0; p < fg.length; p++) out.data[p * 4 + 3] = 255;
  return out;
}

/** The face image's subject (its foreground's box), fitted to the box of the target's, drawn over the target's foreground. */
export function simMergeFace(face: Rgba, target: Rgba): Rgba {
  const targetFg = foreground(target);
  const box = boundingBox(targetFg, target.width, target.height);
  const faceBox = boundingBox(foreground(face), face.width, face.height);
  const fitted = resize(crop(face, faceBox), box.width, box.height);
  const out = { ...target, data: target.data.slice() };
  for (let y = 0; y < box.height; y++) {
    for (let x = 0; x < box.width; x++) {
      const p = (box.y + y) * target.width + box.x + x;
      if (targetFg[p]! <= 0.5) continue;
      out.data.set(fitted.data.subarray((y * box.width + x) * 4, (y * box.width + x) * 4 + 3), p * 4);
    }
  }
  return out;
}

/** The input `scale` times larger on each side. */
export function simUpscale(src: Rgba, scale: number): Rgba {
  return resize(src, Math.round(src.width * scale), Math.round(src.height * scale));
}
