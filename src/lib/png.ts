// A PNG encoder for 8-bit RGB or RGBA pixels (no dependency: node:zlib deflates and checksums),
// its chunk writer, and the reader of a PNG's size (IHDR) that tests and upstream checks use.
import { crc32, deflate } from 'node:zlib';
import { promisify } from 'node:util';

const deflateAsync = promisify(deflate);
const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** One PNG chunk: length, type, data, CRC. */
export function pngChunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'ascii');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(data, crc32(head.subarray(4))) >>> 0);
  return Buffer.concat([head, data, crc]);
}

/**
 * Encode `rgb` (width × height × `channels` bytes, rows top to bottom: 3 RGB, 4 RGBA) as a
 * PNG. Rows are filtered with "none"; the deflate runs on the thread pool, not the event loop.
 */
export async function encodePng(width: number, height: number, rgb: Uint8Array, channels: 3 | 4 = 3): Promise<Buffer> {
  if (rgb.length !== width * height * channels) throw new Error(`expected ${width * height * channels} bytes of ${channels === 3 ? 'RGB' : 'RGBA'}, got ${rgb.length}`);
  const stride = width * channels;
  const raw = Buffer.alloc((stride + 1) * height);
  for (let y = 0; y < height; y++) raw.set(rgb.subarray(y * stride, (y + 1) * stride), y * (stride + 1) + 1);
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = channels === 3 ? 2 : 6; // colour type: RGB or RGBA
  return Buffer.concat([SIGNATURE, pngChunk('IHDR', ihdr), pngChunk('IDAT', await deflateAsync(raw)), pngChunk('IEND', Buffer.alloc(0))]);
}

/** The width and height of a PNG, or undefined when `b` does not start like one. */
export function pngSize(b: Uint8Array): { width: number; height: number } | undefined {
  const buf = Buffer.from(b.buffer, b.byteOffset, b.byteLength);
  if (buf.length < 24 || !buf.subarray(0, 8).equals(SIGNATURE) || buf.toString('ascii', 12, 16) !== 'IHDR') return undefined;
  return { width: buf.readUInt32BE(16), height: buf.readUInt32BE(20) };
}
