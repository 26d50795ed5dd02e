// Images clients send to image operations: base64 PNG, as the vendor's API takes them
// (`image_base64`, `image_file`, `mask_file`…), a `data:image/png;base64,` prefix allowed.
// Each is decoded when the request is judged, so a bad one is a 400 naming its field before
// anything is admitted or written; a URL, a JPEG or WebP, or a broken PNG is told as such.
import { PngError, type Rgba } from '../../lib/png-decode.ts';
import { bad } from './errors.ts';
import { offThread } from './sim-thread.ts';

export const IMAGE_INPUT_LIMITS = { maxSide: 2048 } as const;

export interface ImageInput {
  /** the bytes as sent (what an upstream is given, and what a task keeps) */
  png: Buffer;
  image: Rgba;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const DATA_URL = /^data:image\/[a-z+.-]+;base64,/i;

/** The PNG in `value`, decoded; a 400 naming `field` otherwise. */
export async function readImageInput(value: unknown, field: string): Promise<ImageInput> {
  if (typeof value !== 'string' || value.length === 0) throw bad(field, 'required: a base64-encoded PNG image');
  if (/^https?:\/\//i.test(value)) throw bad(field, 'a base64-encoded PNG image, not a URL (Gantry does not fetch images)');
  const text = value.replace(DATA_URL, '').replace(/\s+/g, '');
  if (!BASE64.test(text) || text.length % 4 === 1) throw bad(field, 'not base64: a base64-encoded PNG image');
  const png = Buffer.from(text, 'base64');
  const kind = sniff(png);
  if (kind !== 'png') throw bad(field, `a PNG image${kind ? `, not ${kind}` : ''} (the image operations read PNG only)`);
  const L = IMAGE_INPUT_LIMITS;
  let image: Rgba;
  try {
    image = await offThread('decodePng', png, L.maxSide * L.maxSide);
  } catch (err) {
    if (err instanceof PngError) throw bad(field, `not a readable PNG: ${err.message}`);
    throw err;
  }
  if (image.width > L.maxSide || image.height > L.maxSide) throw bad(field, `at most ${L.maxSide}×${L.maxSide} pixels (this one is ${image.width}×${image.height})`);
  return { png, image };
}

/** What the bytes are, by their first bytes. */
function sniff(b: Buffer): string | undefined {
  if (b.length >= 8 && b.readUInt32BE(0) === 0x89504e47) return 'png';
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'JPEG';
  if (b.length >= 12 && b.toString('ascii', 0, 4) === 'RIFF' && b.toString('ascii', 8, 12) === 'WEBP') return 'WebP';
  if (b.length >= 6 && b.toString('ascii', 0, 3) === 'GIF') return 'GIF';
  return undefined;
}
