// A PNG decoder (no dependency: node:zlib inflates) for images clients send: every colour
// type (grey, RGB, palette, grey + alpha, RGBA), bit depths 1-16, Adam7 interlacing; the
// pixels come out as 8-bit RGBA. Ancillary chunks are skipped; a palette's transparency
// (tRNS) is applied. Anything malformed throws a PngError saying what, and which rule.
//
// Memory is bounded by what the header declares, never by what the data would inflate to:
// IHDR fixes the inflated size exactly (each row is a filter byte and its packed samples,
// pass by pass when interlaced), so the image data is inflated with that as its output
// limit (zlib stops there: a 1×1 image whose data would inflate to 1 GiB costs 5 bytes), and
// data that inflates to more or to less is refused. Before anything is inflated, the header
// is judged on its own (readPngHeader, cheap enough for the request's thread): the pixel
// limit, and compressed data larger than any encoder writes for that size (stored blocks
// are the largest form: see maxIdatBytes).
import { inflateSync } from 'node:zlib';

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** channels per pixel by colour type */
const CHANNELS: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };
/** Adam7 passes: x start, y start, x step, y step */
const ADAM7 = [[0, 0, 8, 8], [4, 0, 8, 8], [0, 4, 4, 8], [2, 0, 4, 4], [0, 2, 2, 4], [1, 0, 2, 2], [0, 1, 1, 2]] as const;
const WHOLE = [[0, 0, 1, 1]] as const;
/** chunk types, as their four bytes read big-endian */
const [IHDR, PLTE, TRNS, IDAT, IEND] = ['IHDR', 'PLTE', 'tRNS', 'IDAT', 'IEND'].map((t) => Buffer.from(t, 'latin1').readUInt32BE(0));
/**
 * Chunks a PNG may have: the header is read on the request's thread, a few steps a chunk
 * (16,384 chunks: ~1 ms of CPU). Encoders write IDAT chunks of kilobytes (libpng 8 KB: a 6 MB
 * image has ~800 of them; one a row at most: 2,048 here); a file of empty chunks is no image.
 */
const MAX_CHUNKS = 1 << 14;

/** What a PngError says was broken: the `rule` of the refusal a client sees. */
export const PNG_RULES = ['png_signature', 'png_chunks', 'png_header', 'max_pixels', 'declared_size', 'png_data'] as const;
export type PngRule = (typeof PNG_RULES)[number];

export class PngError extends Error {
  readonly rule: PngRule;
  constructor(rule: PngRule, message: string) {
    super(message);
    this.name = 'PngError';
    this.rule = rule;
  }
}

export interface Rgba {
  width: number;
  height: number;
  /** width × height × 4 bytes, rows top to bottom */
  data: Uint8Array;
}

export interface PngHeader {
  width: number;
  height: number;
  depth: number;
  type: number;
  interlace: number;
  /** the exact size the image data inflates to: rows × (1 + row bytes), summed over the passes */
  inflatedBytes: number;
  /** the compressed image data (the IDAT chunks' lengths) */
  idatBytes: number;
}

interface Chunks {
  header: PngHeader;
  palette: Buffer | undefined;
  trns: Buffer | undefined;
  idat: Buffer[];
}

/**
 * The most compressed bytes an image of `inflated` bytes needs: zlib's 2-byte header and
 * 4-byte checksum, and stored blocks (at most 65,535 bytes each, 5 bytes of header), the
 * largest form deflate has; doubled, with 1 KiB more, for encoders that write empty blocks
 * or fixed codes for incompressible data (9 bits a byte at worst). More is not an image.
 */
export function maxIdatBytes(inflated: number): number {
  return 2 * (inflated + 5 * Math.ceil(inflated / 65_535) + 6) + 1024;
}

/** The header of a PNG, judged (structure, pixel limit, data size), without inflating anything. */
export function readPngHeader(b: Uint8Array, maxPixels: number): PngHeader {
  return readChunks(b, maxPixels, false).header;
}

/** Decode a PNG to RGBA; `maxPixels` bounds the memory a hostile header could ask for. */
export function decodePng(b: Uint8Array, maxPixels: number): Rgba {
  const c = readChunks(b, maxPixels, true);
  const { width, height } = c.header;
  return { width, height, data: toRgba(c, inflateExactly(c)) };
}

/** The chunks Gantry reads, judged; `withData`: keep the image data's chunks too (the header alone needs only their lengths). */
function readChunks(b: Uint8Array, maxPixels: number, withData: boolean): Chunks {
  const buf = Buffer.from(b.buffer, b.byteOffset, b.byteLength);
  if (buf.length < 8 || !buf.subarray(0, 8).equals(SIGNATURE)) throw new PngError('png_signature', 'not a PNG (no PNG signature)');
  let header: PngHeader | undefined;
  const c: Omit<Chunks, 'header'> = { palette: undefined, trns: undefined, idat: [] };
  let idatBytes = 0;
  let at = 8;
  for (let n = 1; at < buf.length; n++) {
    if (at + 8 > buf.length) throw new PngError('png_chunks', `the file is cut short (a chunk header at byte ${at})`);
    if (n > MAX_CHUNKS) throw new PngError('png_chunks', `more than ${MAX_CHUNKS} chunks`);
    const len = buf.readUInt32BE(at);
    const type = buf.readUInt32BE(at + 4);
    const end = at + 8 + len;
    if (end > buf.length) throw new PngError('png_chunks', `chunk ${buf.toString('latin1', at + 4, at + 8)} is cut short`);
    if (!header && type !== IHDR) throw new PngError('png_chunks', 'no IHDR chunk first');
    if (type === IEND) break;
    // a Buffer only for the chunks read: skipping the others is a few steps each
    if (type === IHDR) header ??= readIhdr(buf.subarray(at + 8, end), maxPixels);
    else if (type === PLTE) c.palette = buf.subarray(at + 8, end);
    else if (type === TRNS) c.trns = buf.subarray(at + 8, end);
    else if (type === IDAT) {
      idatBytes += len;
      if (withData) c.idat.push(buf.subarray(at + 8, end));
    }
    at = end + 4;
  }
  if (!header) throw new PngError('png_chunks', 'no IHDR chunk first');
  if (header.type === 3 && !c.palette) throw new PngError('png_chunks', 'a palette image without a PLTE chunk');
  return { header: judgeData(header, idatBytes), ...c };
}

/** The image data judged against the header: some, and no more than such an image holds. */
function judgeData(header: PngHeader, idatBytes: number): PngHeader {
  header.idatBytes = idatBytes;
  if (header.idatBytes === 0) throw new PngError('png_chunks', 'no image data (IDAT chunk)');
  if (header.idatBytes > maxIdatBytes(header.inflatedBytes)) {
    throw new PngError('declared_size', `${header.idatBytes} bytes of image data is more than a ${header.width}×${header.height} image holds (it inflates to ${header.inflatedBytes} bytes)`);
  }
  return header;
}

function readIhdr(d: Buffer, maxPixels: number): PngHeader {
  if (d.length < 13) throw new PngError('png_chunks', 'IHDR is cut short');
  const h = { width: d.readUInt32BE(0), height: d.readUInt32BE(4), depth: d[8]!, type: d[9]!, interlace: d[12]!, inflatedBytes: 0, idatBytes: 0 };
  if (CHANNELS[h.type] === undefined) throw new PngError('png_header', `colour type ${h.type} is not a PNG colour type`);
  const depths = h.type === 0 ? [1, 2, 4, 8, 16] : h.type === 3 ? [1, 2, 4, 8] : [8, 16];
  if (!depths.includes(h.depth)) throw new PngError('png_header', `bit depth ${h.depth} is not allowed for colour type ${h.type}`);
  if (d[10] !== 0 || d[11] !== 0) throw new PngError('png_header', `compression method ${d[10]} or filter method ${d[11]} is unknown`);
  if (h.width < 1 || h.height < 1) throw new PngError('png_header', 'width and height must be at least 1');
  if (h.width * h.height > maxPixels) throw new PngError('max_pixels', `${h.width}×${h.height} is more than ${maxPixels} pixels`);
  if (h.interlace > 1) throw new PngError('png_header', `interlace method ${h.interlace} is unknown`);
  for (const p of passes(h)) h.inflatedBytes += p.rows * (1 + p.stride);
  return h;
}

interface Pass { x0: number; y0: number; dx: number; dy: number; w: number; rows: number; stride: number }

/** The passes of the image (one, or Adam7's seven), without the empty ones. */
function passes(h: Omit<PngHeader, 'inflatedBytes' | 'idatBytes'>): Pass[] {
  const ch = CHANNELS[h.type]!;
  const out: Pass[] = [];
  for (const [x0, y0, dx, dy] of h.interlace ? ADAM7 : WHOLE) {
    const w = Math.ceil((h.width - x0) / dx);
    const rows = Math.ceil((h.height - y0) / dy);
    if (w > 0 && rows > 0) out.push({ x0, y0, dx, dy, w, rows, stride: Math.ceil((w * ch * h.depth) / 8) });
  }
  return out;
}

/** The image data inflated, never past the size the header declares; more or less is refused. */
function inflateExactly(c: Chunks): Buffer {
  const expected = c.header.inflatedBytes;
  let raw: Buffer;
  try {
    raw = inflateSync(Buffer.concat(c.idat), { maxOutputLength: expected, chunkSize: 64 * 1024 });
  } catch (err) {
    if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') {
      throw new PngError('declared_size', `the image data inflates to more than the ${expected} bytes its IHDR declares (${c.header.width}×${c.header.height})`);
    }
    throw new PngError('png_data', `the image data does not inflate: ${(err as Error).message}`);
  }
  if (raw.length !== expected) throw new PngError('declared_size', `the image data inflates to ${raw.length} bytes, not the ${expected} its IHDR declares`);
  return raw;
}

/** Rows unfiltered one at a time, each written straight into the RGBA output (no image-sized intermediate). */
function toRgba(c: Chunks, raw: Buffer): Uint8Array {
  const h = c.header;
  const ch = CHANNELS[h.type]!;
  const bpp = Math.max(1, Math.ceil((ch * h.depth) / 8));
  const out = new Uint8Array(h.width * h.height * 4);
  const put = pixelWriter(c, out);
  const samples = new Uint16Array(ch);
  let at = 0;
  for (const p of passes(h)) {
    let prev: Buffer = Buffer.alloc(p.stride);
    for (let r = 0; r < p.rows; r++) {
      const line = unfilter(raw[at]!, Buffer.from(raw.subarray(at + 1, at + 1 + p.stride)), prev, bpp);
      at += 1 + p.stride;
      const rowStart = (p.y0 + r * p.dy) * h.width;
      for (let i = 0; i < p.w; i++) {
        for (let k = 0; k < ch; k++) samples[k] = sample(line, i * ch + k, h.depth);
        put((rowStart + p.x0 + i * p.dx) * 4, samples);
      }
      prev = line;
    }
  }
  return out;
}

function unfilter(filter: number, line: Buffer, prev: Buffer, bpp: number): Buffer {
  if (filter > 4) throw new PngError('png_data', `row filter ${filter} is unknown`);
  for (let i = 0; i < line.length; i++) {
    const a = i >= bpp ? line[i - bpp]! : 0;
    const b = prev[i]!;
    const c = i >= bpp ? prev[i - bpp]! : 0;
    const add = filter === 0 ? 0 : filter === 1 ? a : filter === 2 ? b : filter === 3 ? (a + b) >> 1 : paeth(a, b, c);
    line[i] = (line[i]! + add) & 0xff;
  }
  return line;
}

function paeth(a: number, b: number, c: number): number {
  const p = a + b - c;
  const pa = Math.abs(p - a);
  const pb = Math.abs(p - b);
  const pc = Math.abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/** The n-th sample of a row of `depth`-bit samples. */
function sample(line: Buffer, n: number, depth: number): number {
  if (depth === 8) return line[n]!;
  if (depth === 16) return line.readUInt16BE(n * 2);
  const bit = n * depth;
  return (line[bit >> 3]! >> (8 - depth - (bit & 7))) & ((1 << depth) - 1);
}

/** Writes one pixel's samples (the colour type's channels at its depth) as RGBA at `o`. */
function pixelWriter(c: Chunks, out: Uint8Array): (o: number, s: Uint16Array) => void {
  const { type, depth } = c.header;
  const { palette, trns } = c;
  const max = (1 << depth) - 1;
  const to8 = (v: number) => (depth === 8 ? v : Math.round((v * 255) / max));
  if (type === 3) {
    return (o, s) => {
      const k = s[0]!;
      if (k * 3 + 2 >= palette!.length) throw new PngError('png_data', `palette index ${k} is past the palette`);
      out[o] = palette![k * 3]!;
      out[o + 1] = palette![k * 3 + 1]!;
      out[o + 2] = palette![k * 3 + 2]!;
      out[o + 3] = trns && k < trns.length ? trns[k]! : 255;
    };
  }
  if (type === 0 || type === 4) {
    const grayKey = type === 0 && trns && trns.length >= 2 ? trns.readUInt16BE(0) : -1;
    return (o, s) => {
      out[o] = out[o + 1] = out[o + 2] = to8(s[0]!);
      out[o + 3] = type === 4 ? to8(s[1]!) : s[0] === grayKey ? 0 : 255;
    };
  }
  const key = type === 2 && trns && trns.length >= 6 ? [trns.readUInt16BE(0), trns.readUInt16BE(2), trns.readUInt16BE(4)] : undefined;
  return (o, s) => {
    out[o] = to8(s[0]!);
    out[o + 1] = to8(s[1]!);
    out[o + 2] = to8(s[2]!);
    out[o + 3] = type === 6 ? to8(s[3]!) : key && s[0] === key[0] && s[1] === key[1] && s[2] === key[2] ? 0 : 255;
  };
}
