// PNGs whose header says one thing and whose image data another, as a hostile tenant writes
// them: a 1×1 image whose data inflates to a gibibyte (about a kilobyte of deflate per
// mebibyte of zeros), data shorter than the header declares, headers over the limits. Made
// here without ever holding what they inflate to: the zlib stream is copies of one
// self-contained deflate block (a full flush after a mebibyte of zeros), then a final empty
// block and the checksum, which for zeros is known.
import { constants, deflateRawSync } from 'node:zlib';
import { pngChunk } from '../../src/lib/png.ts';

const MIB = 1 << 20;
const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
let zeroBlock: Buffer | undefined;

/** A zlib stream that inflates to `bytes` zero bytes. */
export function zerosStream(bytes: number): Buffer {
  zeroBlock ??= deflateRawSync(Buffer.alloc(MIB), { finishFlush: constants.Z_FULL_FLUSH });
  const parts: Buffer[] = [Buffer.from([0x78, 0x9c])];
  for (let i = 0; i < Math.floor(bytes / MIB); i++) parts.push(zeroBlock);
  if (bytes % MIB) parts.push(deflateRawSync(Buffer.alloc(bytes % MIB), { finishFlush: constants.Z_FULL_FLUSH }));
  parts.push(deflateRawSync(Buffer.alloc(0))); // the final, empty block
  const adler = Buffer.alloc(4);
  adler.writeUInt32BE((((bytes % 65_521) << 16) | 1) >>> 0); // Adler-32 of n zeros: a = 1, b = n mod 65521
  parts.push(adler);
  return Buffer.concat(parts);
}

/** How many zero bytes `zerosStream` needs per byte of compressed output, roughly: to size a stream by its compressed bytes. */
export function zerosPerCompressedByte(): number {
  zeroBlock ??= deflateRawSync(Buffer.alloc(MIB), { finishFlush: constants.Z_FULL_FLUSH });
  return MIB / zeroBlock.length;
}

/** A PNG declaring `width` × `height` (8-bit RGBA unless said) whose IDAT holds `idat` as it is. */
export function pngWithData(o: { width: number; height: number; idat: Buffer; depth?: number; type?: number; interlace?: boolean }): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(o.width, 0);
  ihdr.writeUInt32BE(o.height, 4);
  ihdr[8] = o.depth ?? 8;
  ihdr[9] = o.type ?? 6;
  ihdr[12] = o.interlace ? 1 : 0;
  return Buffer.concat([SIGNATURE, pngChunk('IHDR', ihdr), pngChunk('IDAT', o.idat), pngChunk('IEND', Buffer.alloc(0))]);
}

/** The bytes the image data of a non-interlaced 8-bit RGBA image inflates to: a filter byte and 4 bytes a pixel, each row. */
export const rgbaDataBytes = (width: number, height: number) => height * (1 + 4 * width);

/** A PNG declaring `width` × `height` RGBA whose data inflates to `inflated` zero bytes (more or less than declared). */
export const zeroPng = (width: number, height: number, inflated: number) => pngWithData({ width, height, idat: zerosStream(inflated) });
