// Images clients send to image operations: base64 PNG, as the vendor's API takes them
// (`image_base64`, `image_file`, `mask_file`…), a `data:image/png;base64,` prefix allowed.
// Judged in two steps, so that a team with no money cannot make the server decode:
//  - readImageInput, with the request, on its thread: base64, PNG, the chunks and the header
//    (size, pixel limit, data no larger than such an image holds), no pixel inflated. A bad
//    one is a 400 naming its field before anything is admitted or written;
//  - decodeImageInput, once the spend admission has reserved the work's cost and before
//    anything is written (tasks.ts startTask `judge`): the pixels, on the pixel pool, never
//    inflated past the size the header declares. Data that breaks it is a 400 naming the
//    field too, and the reservation goes back.
// A URL, a JPEG or WebP, or a broken PNG is told as such; `metadata.rule` says which rule.
import { PngError, readPngHeader, type Rgba } from '../../lib/png-decode.ts';
import { bad, badImage } from './errors.ts';
import { offThread } from './pixel-pool.ts';

export const IMAGE_INPUT_LIMITS = { maxSide: 2048 } as const;
const MAX_PIXELS = IMAGE_INPUT_LIMITS.maxSide * IMAGE_INPUT_LIMITS.maxSide;

export interface ImageInput {
  /** the request's field it came in */
  field: string;
  /** the bytes as sent (what an upstream is given, and what a task keeps) */
  png: Buffer;
  width: number;
  height: number;
}

const DATA_URL = /^data:image\/[a-z+.-]+;base64,/i;

/** The PNG in `value`, its header judged (nothing inflated); a 400 naming `field` otherwise. */
export function readImageInput(value: unknown, field: string): ImageInput {
  if (typeof value !== 'string' || value.length === 0) throw bad(field, 'required: a base64-encoded PNG image');
  if (/^https?:\/\//i.test(value)) throw bad(field, 'a base64-encoded PNG image, not a URL (Gantry does not fetch images)');
  const text = value.replace(DATA_URL, '').replace(/\s+/g, '');
  const png = Buffer.from(text, 'base64');
  // Node's decoder skips what is not base64: fewer bytes than the length promises means some
  // was not (a regex over 8 MB of text held the event loop ~30 ms; this is one pass in C++)
  if (text.length % 4 === 1 || png.length !== Buffer.byteLength(text, 'base64')) throw bad(field, 'not base64: a base64-encoded PNG image');
  const kind = sniff(png);
  if (kind !== 'png') throw bad(field, `a PNG image${kind ? `, not ${kind}` : ''} (the image operations read PNG only)`);
  const { width, height } = judged(field, () => readPngHeader(png, MAX_PIXELS));
  const L = IMAGE_INPUT_LIMITS;
  if (width > L.maxSide || height > L.maxSide) {
    throw badImage(field, 'max_side', `at most ${L.maxSide}×${L.maxSide} pixels (this one is ${width}×${height})`, { limit: L.maxSide });
  }
  return { field, png, width, height };
}

/** The input's pixels (decoded on the pixel pool, bounded by its header); a 400 naming its field when its data breaks the header. */
export function decodeImageInput(input: ImageInput): Promise<Rgba> {
  return offThread('decodePng', input.png, MAX_PIXELS).catch((err: unknown) => judged(input.field, () => { throw err; }));
}

/** Several inputs' pixels, by name, one after another (the pool serves other requests between them). */
export async function decodeImageInputs(inputs: Record<string, ImageInput>): Promise<Record<string, Rgba>> {
  const out: Record<string, Rgba> = {};
  for (const [name, input] of Object.entries(inputs)) out[name] = await decodeImageInput(input);
  return out;
}

/** A stored input (judged when its task was created), decoded for the task's job. */
export function decodeStoredImage(png: Buffer): Promise<Rgba> {
  return offThread('decodePng', png, MAX_PIXELS);
}

/** What `read` gives, or its PngError as the 400 of `field`. */
function judged<T>(field: string, read: () => T): T {
  try {
    return read();
  } catch (err) {
    if (err instanceof PngError) throw badImage(field, err.rule, `not a readable PNG: ${err.message}`);
    throw err;
  }
}

/** What the bytes are, by their first bytes. */
function sniff(b: Buffer): string | undefined {
  if (b.length >= 8 && b.readUInt32BE(0) === 0x89504e47) return 'png';
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'JPEG';
  if (b.length >= 12 && b.toString('ascii', 0, 4) === 'RIFF' && b.toString('ascii', 8, 12) === 'WEBP') return 'WebP';
  if (b.length >= 6 && b.toString('ascii', 0, 3) === 'GIF') return 'GIF';
  return undefined;
}
