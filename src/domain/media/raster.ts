// Pixel tools the simulator's image operations are built of (sim-edits.ts), on 8-bit RGBA
// rasters (lib/png-decode.ts's Rgba): resampling, masks (read from a mask image, blurred),
// the background as the colour the border is made of, and filling a region from its
// surroundings. Plain loops: images are at most 2048² (IMAGE_INPUT_LIMITS), a few ms each.
import type { Rgba } from '../../lib/png-decode.ts';

/** A per-pixel weight in [0, 1] (1: the pixel is in the region). */
export type Mask = Float32Array;

export function blank(width: number, height: number): Rgba {
  return { width, height, data: new Uint8Array(width * height * 4) };
}

/** RGB bytes (the simulator's pictures) as an opaque raster. */
export function fromRgb(width: number, height: number, rgb: Uint8Array): Rgba {
  const out = blank(width, height);
  for (let p = 0; p < width * height; p++) {
    out.data.set(rgb.subarray(p * 3, p * 3 + 3), p * 4);
    out.data[p * 4 + 3] = 255;
  }
  return out;
}

/** Bilinear resampling to `width` × `height` (pixel centres aligned). */
export function resize(src: Rgba, width: number, height: number): Rgba {
  if (src.width === width && src.height === height) return { width, height, data: src.data.slice() };
  const out = blank(width, height);
  const sx = src.width / width;
  const sy = src.height / height;
  for (let y = 0; y < height; y++) {
    const fy = Math.min(src.height - 1, Math.max(0, (y + 0.5) * sy - 0.5));
    const y0 = Math.floor(fy);
    const y1 = Math.min(src.height - 1, y0 + 1);
    const ty = fy - y0;
    for (let x = 0; x < width; x++) {
      const fx = Math.min(src.width - 1, Math.max(0, (x + 0.5) * sx - 0.5));
      const x0 = Math.floor(fx);
      const x1 = Math.min(src.width - 1, x0 + 1);
      const tx = fx - x0;
      for (let c = 0; c < 4; c++) {
        const a = src.data[(y0 * src.width + x0) * 4 + c]!;
        const b = src.data[(y0 * src.width + x1) * 4 + c]!;
        const d = src.data[(y1 * src.width + x0) * 4 + c]!;
        const e = src.data[(y1 * src.width + x1) * 4 + c]!;
        out.data[(y * width + x) * 4 + c] = Math.round((a * (1 - tx) + b * tx) * (1 - ty) + (d * (1 - tx) + e * tx) * ty);
      }
    }
  }
  return out;
}

const luma = (d: Uint8Array, i: number) => 0.299 * d[i]! + 0.587 * d[i + 1]! + 0.114 * d[i + 2]!;

/**
 * A mask image read as the vendor's API reads one: white (bright) is the region, black is
 * kept; scaled to `width` × `height`, inverted when asked, its edge softened over `blur` pixels.
 */
export function maskFrom(image: Rgba, width: number, height: number, o: { invert?: boolean; blur?: number } = {}): Mask {
  const m = resize(image, width, height);
  let mask: Mask = new Float32Array(width * height);
  for (let p = 0; p < mask.length; p++) {
    const on = luma(m.data, p * 4) >= 128 && m.data[p * 4 + 3]! >= 128;
    mask[p] = on !== Boolean(o.invert) ? 1 : 0;
  }
  if (o.blur && o.blur > 0) mask = boxBlur(mask, width, height, Math.round(o.blur));
  return mask;
}

/** A separable box blur of radius r (the mask's soft edge reaches r pixels each way). */
function boxBlur(m: Mask, w: number, h: number, r: number): Mask {
  const pass = (src: Mask, horizontal: boolean): Mask => {
    const out = new Float32Array(src.length);
    const [len, lines] = horizontal ? [w, h] : [h, w];
    for (let l = 0; l < lines; l++) {
      const at = (k: number) => (horizontal ? l * w + k : k * w + l);
      for (let k = 0; k < len; k++) {
        let sum = 0;
        for (let j = -r; j <= r; j++) sum += src[at(Math.min(len - 1, Math.max(0, k + j)))]!;
        out[at(k)] = sum / (2 * r + 1);
      }
    }
    return out;
  };
  return pass(pass(m, true), false);
}

/** `a` where the mask is 0, `b` where it is 1, mixed between (alpha from `a`). */
export function mix(a: Rgba, b: Rgba, mask: Mask): Rgba {
  const out = { width: a.width, height: a.height, data: a.data.slice() };
  for (let p = 0; p < mask.length; p++) {
    const k = mask[p]!;
    if (k === 0) continue;
    for (let c = 0; c < 3; c++) out.data[p * 4 + c] = Math.round(a.data[p * 4 + c]! * (1 - k) + b.data[p * 4 + c]! * k);
  }
  return out;
}

/**
 * The foreground: what is not connected to the border through pixels of the border's
 * colour (the median of the border pixels, within `tolerance` in RGB). 1 foreground, 0 background.
 */
export function foreground(img: Rgba, tolerance = 48): Mask {
  const { width: w, height: h, data } = img;
  const border: number[] = [];
  for (let x = 0; x < w; x++) border.push(x, (h - 1) * w + x);
  for (let y = 0; y < h; y++) border.push(y * w, y * w + w - 1);
  const median = (c: number) => {
    const v = border.map((p) => data[p * 4 + c]!).sort((x, y) => x - y);
    return v[v.length >> 1]!;
  };
  const bg = [median(0), median(1), median(2)];
  const near = (p: number) => Math.hypot(data[p * 4]! - bg[0]!, data[p * 4 + 1]! - bg[1]!, data[p * 4 + 2]! - bg[2]!) <= tolerance;
  const mask: Mask = new Float32Array(w * h).fill(1);
  const queue = new Int32Array(w * h);
  let n = 0;
  for (const p of border) {
    if (mask[p] === 1 && near(p)) {
      mask[p] = 0;
      queue[n++] = p;
    }
  }
  for (let i = 0; i < n; i++) {
    const p = queue[i]!;
    const x = p % w;
    for (const q of [x > 0 ? p - 1 : -1, x < w - 1 ? p + 1 : -1, p - w, p + w]) {
      if (q >= 0 && q < w * h && mask[q] === 1 && near(q)) {
        mask[q] = 0;
        queue[n++] = q;
      }
    }
  }
  return mask;
}

/** The smallest box holding the mask's pixels over 0.5; the whole image when there are none. */
export function boundingBox(m: Mask, w: number, h: number): { x: number; y: number; width: number; height: number } {
  let x0 = w;
  let y0 = h;
  let x1 = -1;
  let y1 = -1;
  for (let p = 0; p < m.length; p++) {
    if (m[p]! <= 0.5) continue;
    const x = p % w;
    const y = (p - x) / w;
    x0 = Math.min(x0, x);
    x1 = Math.max(x1, x);
    y0 = Math.min(y0, y);
    y1 = Math.max(y1, y);
  }
  return x1 < 0 ? { x: 0, y: 0, width: w, height: h } : { x: x0, y: y0, width: x1 - x0 + 1, height: y1 - y0 + 1 };
}

export function crop(img: Rgba, box: { x: number; y: number; width: number; height: number }): Rgba {
  const out = blank(box.width, box.height);
  for (let y = 0; y < box.height; y++) {
    const from = ((box.y + y) * img.width + box.x) * 4;
    out.data.set(img.data.subarray(from, from + box.width * 4), y * box.width * 4);
  }
  return out;
}

/**
 * Fill the region (mask over 0.5) from its surroundings, layer by layer from its edge: each
 * pixel takes the mean of its neighbours already known (an onion-peel fill: what is removed
 * takes the colours around it). A region with no known pixel around it stays as it was.
 */
export function fillRegion(img: Rgba, m: Mask): Rgba {
  const { width: w, height: h } = img;
  const out = { width: w, height: h, data: img.data.slice() };
  const d = out.data;
  const known = new Uint8Array(w * h);
  for (let p = 0; p < known.length; p++) known[p] = m[p]! > 0.5 ? 0 : 1;
  const queued = known.slice();
  const queue = new Int32Array(w * h);
  let n = 0;
  // the 8 neighbours of p, without allocating: calls visit(q) for each inside the image
  const neighbours = (p: number, visit: (q: number) => void) => {
    const x = p % w;
    const y = (p - x) / w;
    for (let dy = -1; dy <= 1; dy++) {
      if (y + dy < 0 || y + dy >= h) continue;
      for (let dx = -1; dx <= 1; dx++) if ((dx || dy) && x + dx >= 0 && x + dx < w) visit(p + dy * w + dx);
    }
  };
  for (let p = 0; p < known.length; p++) {
    if (known[p]) continue;
    let edge = false;
    neighbours(p, (q) => { edge ||= known[q] === 1; });
    if (edge) {
      queued[p] = 1;
      queue[n++] = p;
    }
  }
  let r = 0;
  let g = 0;
  let b = 0;
  let a = 0;
  let k = 0;
  const take = (q: number) => {
    if (known[q]) {
      r += d[q * 4]!;
      g += d[q * 4 + 1]!;
      b += d[q * 4 + 2]!;
      a += d[q * 4 + 3]!;
      k++;
    } else if (!queued[q]) {
      queued[q] = 1;
      queue[n++] = q;
    }
  };
  for (let i = 0; i < n; i++) {
    const p = queue[i]!;
    r = g = b = a = k = 0;
    neighbours(p, take);
    d[p * 4] = Math.round(r / k);
    d[p * 4 + 1] = Math.round(g / k);
    d[p * 4 + 2] = Math.round(b / k);
    d[p * 4 + 3] = Math.round(a / k);
    known[p] = 1;
  }
  return out;
}

/**
 * Thin marks on a smoother picture (text, watermarks, scribbles): pixels whose brightness
 * differs by more than `threshold` from a 7-pixel median along the row, then along the
 * column (a separable median: a stroke up to 3 pixels wide is gone from one of the two
 * passes, larger shapes stay), grown by one pixel.
 */
export function thinMarks(img: Rgba, threshold = 40): Mask {
  const { width: w, height: h, data } = img;
  const l = new Float32Array(w * h);
  for (let p = 0; p < l.length; p++) l[p] = luma(data, p * 4);
  const median7 = (src: Float32Array, horizontal: boolean): Float32Array => {
    const out = new Float32Array(src.length);
    const win = new Float32Array(7);
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) {
        for (let j = 0; j < 7; j++) {
          // insertion sort as the window fills: 7 values, no allocation
          let v = horizontal ? src[y * w + Math.min(w - 1, Math.max(0, x + j - 3))]! : src[Math.min(h - 1, Math.max(0, y + j - 3)) * w + x]!;
          for (let i = 0; i < j; i++) {
            if (v < win[i]!) {
              const t = win[i]!;
              win[i] = v;
              v = t;
            }
          }
          win[j] = v;
        }
        out[y * w + x] = win[3]!;
      }
    }
    return out;
  };
  const smooth = median7(median7(l, true), false);
  const mask: Mask = new Float32Array(w * h);
  for (let p = 0; p < mask.length; p++) {
    if (Math.abs(l[p]! - smooth[p]!) <= threshold) continue;
    const x = p % w;
    for (const q of [p, x > 0 ? p - 1 : p, x < w - 1 ? p + 1 : p, p - w, p + w]) if (q >= 0 && q < mask.length) mask[q] = 1;
  }
  return mask;
}
