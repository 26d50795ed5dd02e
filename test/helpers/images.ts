// Images for the image operations' tests: PNGs painted pixel by pixel, and outputs decoded
// back to pixels to check what an operation did to them.
import { encodePng } from '../../src/lib/png.ts';
import { decodePng, type Rgba } from '../../src/lib/png-decode.ts';

export type Colour = [number, number, number, number?];

/** A PNG (RGBA) whose pixel (x, y) is `fn(x, y)`. */
export async function paint(width: number, height: number, fn: (x: number, y: number) => Colour): Promise<Buffer> {
  const data = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const [r, g, b, a = 255] = fn(x, y);
      data.set([r, g, b, a], (y * width + x) * 4);
    }
  }
  return encodePng(width, height, data, 4);
}

export const b64 = (png: Buffer) => png.toString('base64');

export const decode = (png: Buffer): Rgba => decodePng(png, 16_777_216);

/** The RGBA of a pixel. */
export function px(img: Rgba, x: number, y: number): [number, number, number, number] {
  const i = (y * img.width + x) * 4;
  return [img.data[i]!, img.data[i + 1]!, img.data[i + 2]!, img.data[i + 3]!];
}

/** The largest difference of any channel of two pixels' RGB. */
export const diff = (a: number[], b: number[]) => Math.max(Math.abs(a[0]! - b[0]!), Math.abs(a[1]! - b[1]!), Math.abs(a[2]! - b[2]!));

export const inDisc = (x: number, y: number, cx: number, cy: number, r: number) => (x - cx) ** 2 + (y - cy) ** 2 <= r * r;
