// A PNG decoder (no dependency: node:zlib inflates) for images clients send: every colour
// type (grey, RGB, palette, grey + alpha, RGBA), bit depths 1-16, Adam7 interlacing; the
// pixels come out as 8-bit RGBA. Ancillary chunks are skipped; a palette's transparency
// (tRNS) is applied. Anything malformed throws a PngError saying what.
import { inflateSync } from 'node:zlib';

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** channels per pixel by colour type */
const CHANNELS: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };
/** Adam7 passes: x start, y start, x step, y step */
const ADAM7 = [[0, 0, 8, 8], [4, 0, 8, 8], [0, 4, 4, 8], [2, 0, 4, 4], [0, 2, 2, 4], [1, 0, 2, 2], [0, 1, 1, 2]] as const;

export class PngError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PngError';
  }
}

export interface Rgba {
  width: number;
  height: number;
  /** width × height × 4 bytes, rows top to bottom */
  data: Uint8Array;
}

interface Header { width: number; height: number; depth: number; type: number; interlace: number }

/** Decode a PNG to RGBA; `maxPixels` bounds the memory a hostile header could ask for. */
export function decodePng(b: Uint8Array, maxPixels: number): Rgba {
  const buf = Buffer.from(b.buffer, b.byteOffset, b.byteLength);
  if (buf.length < 8 || !buf.subarray(0, 8).equals(SIGNATURE)) throw new PngError('not a PNG (no PNG signature)');
  let header: Header | undefined;
  let palette: Buffer | undefined;
  let trns: Buffer | undefined;
  const idat: Buffer[] = [];
  for (let at = 8; at + 8 <= buf.length;) {
    const len = buf.readUInt32BE(at);
    const type = buf.toString('ascii', at + 4, at + 8);
    const data = buf.subarray(at + 8, at + 8 + len);
    if (data.length !== len) throw new PngError(`chunk ${type} is cut short`);
    if (type === 'IHDR') header = readHeader(data, maxPixels);
    else if (type === 'PLTE') palette = data;
    else if (type === 'tRNS') trns = data;
    else if (type === 'IDAT') idat.push(data);
    else if (type === 'IEND') break;
    at += 12 + len;
  }
  if (!header) throw new PngError('no IHDR chunk');
  if (header.type === 3 && !palette) throw new PngError('a palette image without a PLTE chunk');
  let raw: Buffer;
  try {
    raw = inflateSync(Buffer.concat(idat));
  } catch (err) {
    throw new PngError(`the image data does not inflate: ${(err as Error).message}`);
  }
  return { width: header.width, height: header.height, data: toRgba(header, unfilterAll(header, raw), palette, trns) };
}

function readHeader(d: Buffer, maxPixels: number): Header {
  if (d.length < 13) throw new PngError('IHDR is cut short');
  const h = { width: d.readUInt32BE(0), height: d.readUInt32BE(4), depth: d[8]!, type: d[9]!, interlace: d[12]! };
  if (CHANNELS[h.type] === undefined) throw new PngError(`colour type ${h.type} is not a PNG colour type`);
  const depths = h.type === 0 ? [1, 2, 4, 8, 16] : h.type === 3 ? [1, 2, 4, 8] : [8, 16];
  if (!depths.includes(h.depth)) throw new PngError(`bit depth ${h.depth} is not allowed for colour type ${h.type}`);
  if (h.width < 1 || h.height < 1) throw new PngError('width and height must be at least 1');
  if (h.width * h.height > maxPixels) throw new PngError(`${h.width}×${h.height} is more than ${maxPixels} pixels`);
  if (h.interlace > 1) throw new PngError(`interlace method ${h.interlace} is unknown`);
  return h;
}

/** Samples per pixel position, unfiltered, in image order (each sample as its depth's integer). */
function unfilterAll(h: Header, raw: Buffer): Uint16Array {
  const ch = CHANNELS[h.type]!;
  const out = new Uint16Array(h.width * h.height * ch);
  const passes = h.interlace ? ADAM7 : [[0, 0, 1, 1] as const];
  let at = 0;
  for (const [x0, y0, dx, dy] of passes) {
    const w = Math.ceil((h.width - x0) / dx);
    const rows = Math.ceil((h.height - y0) / dy);
    if (w <= 0 || rows <= 0) continue;
    const stride = Math.ceil((w * ch * h.depth) / 8);
    const bpp = Math.max(1, Math.ceil((ch * h.depth) / 8));
    let prev: Buffer = Buffer.alloc(stride);
    for (let r = 0; r < rows; r++) {
      if (at + 1 + stride > raw.length) throw new PngError('the image data is shorter than the image');
      const line: Buffer = unfilter(raw[at]!, Buffer.from(raw.subarray(at + 1, at + 1 + stride)), prev, bpp);
      at += 1 + stride;
      const y = y0 + r * dy;
      for (let i = 0; i < w; i++) {
        const x = x0 + i * dx;
        for (let c = 0; c < ch; c++) out[(y * h.width + x) * ch + c] = sample(line, (i * ch + c), h.depth);
      }
      prev = line;
    }
  }
  return out;
}

function unfilter(filter: number, line: Buffer, prev: Buffer, bpp: number): Buffer {
  for (let i = 0; i < line.length; i++) {
    const a = i >= bpp ? line[i - bpp]! : 0;
    const b = prev[i]!;
    const c = i >= bpp ? prev[i - bpp]! : 0;
    let add: number;
    if (filter === 0) add = 0;
    else if (filter === 1) add = a;
    else if (filter === 2) add = b;
    else if (filter === 3) add = (a + b) >> 1;
    else if (filter === 4) add = paeth(a, b, c);
    else throw new PngError(`row filter ${filter} is unknown`);
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

function toRgba(h: Header, s: Uint16Array, palette: Buffer | undefined, trns: Buffer | undefined): Uint8Array {
  const n = h.width * h.height;
  const ch = CHANNELS[h.type]!;
  const max = (1 << h.depth) - 1;
  const to8 = (v: number) => (h.depth === 8 ? v : Math.round((v * 255) / max));
  const grayKey = h.type === 0 && trns && trns.length >= 2 ? trns.readUInt16BE(0) : -1;
  const rgbKey = h.type === 2 && trns && trns.length >= 6 ? [trns.readUInt16BE(0), trns.readUInt16BE(2), trns.readUInt16BE(4)] : undefined;
  const out = new Uint8Array(n * 4);
  for (let p = 0; p < n; p++) {
    const i = p * ch;
    const o = p * 4;
    if (h.type === 3) {
      const k = s[i]!;
      if (k * 3 + 2 >= palette!.length) throw new PngError(`palette index ${k} is past the palette`);
      out[o] = palette![k * 3]!;
      out[o + 1] = palette![k * 3 + 1]!;
      out[o + 2] = palette![k * 3 + 2]!;
      out[o + 3] = trns && k < trns.length ? trns[k]! : 255;
    } else if (h.type === 0 || h.type === 4) {
      out[o] = out[o + 1] = out[o + 2] = to8(s[i]!);
      out[o + 3] = h.type === 4 ? to8(s[i + 1]!) : s[i] === grayKey ? 0 : 255;
    } else {
      out[o] = to8(s[i]!);
      out[o + 1] = to8(s[i + 1]!);
      out[o + 2] = to8(s[i + 2]!);
      out[o + 3] = h.type === 6 ? to8(s[i + 3]!) : rgbKey && s[i] === rgbKey[0] && s[i + 1] === rgbKey[1] && s[i + 2] === rgbKey[2] ? 0 : 255;
    }
  }
  return out;
}
