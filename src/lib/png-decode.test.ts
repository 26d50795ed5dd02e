// The PNG decoder against PNGs written here chunk by chunk in every form the format allows:
// each colour type and bit depth, palettes with transparency, the five row filters, Adam7
// interlacing; broken files refused with a PngError saying what; and the bound: the size the
// header declares is exactly what the data inflates to, and nothing past it is inflated.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { deflateSync, inflateSync } from 'node:zlib';
import { decodePng, maxIdatBytes, PngError, readPngHeader } from './png-decode.ts';
import { encodePng, pngChunk as chunk } from './png.ts';
import { pngWithData, zeroPng, zerosStream } from '../../test/helpers/hostile-png.ts';

const CHANNELS: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };
const ADAM7 = [[0, 0, 8, 8], [4, 0, 8, 8], [0, 4, 4, 8], [2, 0, 4, 4], [0, 2, 2, 4], [1, 0, 2, 2], [0, 1, 1, 2]];

/** Pack one row of samples at `depth` bits. */
function packRow(samples: number[], depth: number): Buffer {
  const out = Buffer.alloc(Math.ceil((samples.length * depth) / 8));
  samples.forEach((v, i) => {
    if (depth === 16) out.writeUInt16BE(v, i * 2);
    else if (depth === 8) out[i] = v;
    else out[(i * depth) >> 3]! |= v << (8 - depth - ((i * depth) & 7));
  });
  return out;
}

/** Forward-filter a row with `filter` (0-4), as an encoder would. */
function filterRow(filter: number, row: Buffer, prev: Buffer, bpp: number): Buffer {
  const out = Buffer.alloc(row.length + 1);
  out[0] = filter;
  for (let i = 0; i < row.length; i++) {
    const a = i >= bpp ? row[i - bpp]! : 0;
    const b = prev[i] ?? 0;
    const c = i >= bpp ? prev[i - bpp] ?? 0 : 0;
    const p = a + b - c;
    const pred = [0, a, b, (a + b) >> 1, Math.abs(p - a) <= Math.abs(p - b) && Math.abs(p - a) <= Math.abs(p - c) ? a : Math.abs(p - b) <= Math.abs(p - c) ? b : c][filter]!;
    out[i + 1] = (row[i]! - pred) & 0xff;
  }
  return out;
}

/** A PNG of `samples(x, y)` (one array per pixel, the colour type's channels) written the long way. */
function png(o: { width: number; height: number; type: number; depth: number; interlace?: boolean; filters?: number[]; plte?: Buffer; trns?: Buffer }, samples: (x: number, y: number) => number[]): Buffer {
  const ch = CHANNELS[o.type]!;
  const bpp = Math.max(1, Math.ceil((ch * o.depth) / 8));
  const parts: Buffer[] = [];
  for (const [x0, y0, dx, dy] of o.interlace ? ADAM7 : [[0, 0, 1, 1]]) {
    let prev: Buffer = Buffer.alloc(0);
    for (let y = y0!; y < o.height; y += dy!) {
      const row: number[] = [];
      for (let x = x0!; x < o.width; x += dx!) row.push(...samples(x, y));
      if (!row.length) continue;
      const packed = packRow(row, o.depth);
      parts.push(filterRow(o.filters?.[y % o.filters.length] ?? 0, packed, prev, bpp));
      prev = packed;
    }
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(o.width, 0);
  ihdr.writeUInt32BE(o.height, 4);
  ihdr[8] = o.depth;
  ihdr[9] = o.type;
  ihdr[12] = o.interlace ? 1 : 0;
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr),
    ...(o.plte ? [chunk('PLTE', o.plte)] : []), ...(o.trns ? [chunk('tRNS', o.trns)] : []),
    chunk('tEXt', Buffer.from('Comment\0skipped')), chunk('IDAT', deflateSync(Buffer.concat(parts))), chunk('IEND', Buffer.alloc(0)),
  ]);
}

const pixel = (d: { width: number; data: Uint8Array }, x: number, y: number) => [...d.data.subarray((y * d.width + x) * 4, (y * d.width + x) * 4 + 4)];

test('every colour type and bit depth decodes to the same RGBA', () => {
  const W = 13; // odd: rows end mid-byte at low depths
  const H = 9;
  const g8 = (x: number, y: number) => (x * 19 + y * 7) & 255;
  // grey 1, 2, 4, 8, 16 bits: the top bits of the same ramp, scaled back to 8 bits
  for (const depth of [1, 2, 4, 8, 16]) {
    const max = 2 ** depth - 1;
    const v = (x: number, y: number) => Math.round((g8(x, y) / 255) * max);
    const d = decodePng(png({ width: W, height: H, type: 0, depth }, (x, y) => [v(x, y)]), 1e6);
    const e = Math.round((v(5, 3) * 255) / max);
    assert.deepEqual(pixel(d, 5, 3), [e, e, e, 255], `grey ${depth}-bit`);
  }
  const rgb = decodePng(png({ width: W, height: H, type: 2, depth: 16 }, (x, y) => [x * 5000, y * 7000, 65535]), 1e6);
  assert.deepEqual(pixel(rgb, 4, 2), [Math.round((20000 * 255) / 65535), Math.round((14000 * 255) / 65535), 255, 255]);
  const ga = decodePng(png({ width: W, height: H, type: 4, depth: 8 }, (x, y) => [g8(x, y), x * 10]), 1e6);
  assert.deepEqual(pixel(ga, 6, 1), [g8(6, 1), g8(6, 1), g8(6, 1), 60]);
  const rgba = decodePng(png({ width: W, height: H, type: 6, depth: 8 }, (x, y) => [x, y, x + y, 200]), 1e6);
  assert.deepEqual(pixel(rgba, 12, 8), [12, 8, 20, 200]);
  // a palette of 4 colours at 2 bits, the second one half transparent
  const plte = Buffer.from([255, 0, 0, 0, 255, 0, 0, 0, 255, 9, 9, 9]);
  const pal = decodePng(png({ width: W, height: H, type: 3, depth: 2, plte, trns: Buffer.from([255, 128]) }, (x) => [x % 4]), 1e6);
  assert.deepEqual([pixel(pal, 0, 0), pixel(pal, 1, 0), pixel(pal, 2, 0), pixel(pal, 3, 0)], [[255, 0, 0, 255], [0, 255, 0, 128], [0, 0, 255, 255], [9, 9, 9, 255]]);
  // tRNS on RGB: the key colour is transparent
  const keyed = decodePng(png({ width: 2, height: 1, type: 2, depth: 8, trns: Buffer.from([0, 1, 0, 2, 0, 3]) }, (x) => (x ? [1, 2, 3] : [1, 2, 4])), 1e6);
  assert.deepEqual([pixel(keyed, 0, 0)[3], pixel(keyed, 1, 0)[3]], [255, 0]);
});

test('the five row filters and Adam7 interlacing decode to the pixels written', () => {
  const f = (x: number, y: number) => [(x * 31 + y) & 255, (y * 17 + x * 3) & 255, (x * y) & 255, 255 - x];
  for (const interlace of [false, true]) {
    const d = decodePng(png({ width: 37, height: 23, type: 6, depth: 8, interlace, filters: [0, 1, 2, 3, 4] }, f), 1e6);
    for (let y = 0; y < 23; y++) for (let x = 0; x < 37; x++) assert.deepEqual(pixel(d, x, y), f(x, y), `(${x}, ${y}) interlaced ${interlace}`);
  }
  // a tiny interlaced image leaves some passes empty
  const tiny = decodePng(png({ width: 3, height: 2, type: 0, depth: 8, interlace: true }, (x, y) => [x * 10 + y]), 1e6);
  assert.deepEqual(pixel(tiny, 2, 1), [21, 21, 21, 255]);
});

test('what encodePng writes decodes to the same pixels, RGB and RGBA', async () => {
  const rgba = new Uint8Array(7 * 5 * 4).map((_, i) => (i * 37) & 255);
  assert.deepEqual(decodePng(await encodePng(7, 5, rgba, 4), 1e6).data, rgba);
  const rgb = new Uint8Array(7 * 5 * 3).map((_, i) => (i * 11) & 255);
  const d = decodePng(await encodePng(7, 5, rgb), 1e6);
  assert.deepEqual(pixel(d, 1, 0), [rgb[3], rgb[4], rgb[5], 255]);
});

test('broken or hostile PNGs are refused with a PngError saying what', () => {
  const good = png({ width: 4, height: 4, type: 2, depth: 8 }, () => [1, 2, 3]);
  const huge = Buffer.from(good); // a header that asks for 5000 × 5000 pixels, refused before any is read
  huge.writeUInt32BE(5000, 16);
  huge.writeUInt32BE(5000, 20);
  const cases: [Buffer, RegExp][] = [
    [Buffer.from('hello world'), /signature/],
    [good.subarray(0, 40), /cut short|no IHDR|shorter|inflate/],
    [png({ width: 4, height: 4, type: 5, depth: 8 }, () => [1]), /colour type 5/],
    [png({ width: 4, height: 4, type: 2, depth: 4 }, () => [1, 2, 3]), /bit depth 4/],
    [png({ width: 4, height: 4, type: 3, depth: 8 }, () => [0]), /PLTE/],
    [png({ width: 4, height: 4, type: 3, depth: 8, plte: Buffer.from([1, 2, 3]) }, () => [5]), /palette index 5/],
    [huge, /more than 1000000 pixels/],
    [png({ width: 4, height: 4, type: 2, depth: 8, filters: [7] }, () => [1, 2, 3]), /row filter 7/],
  ];
  for (const [bytes, why] of cases) {
    assert.throws(() => decodePng(bytes, 1_000_000), (err: unknown) => err instanceof PngError && why.test(err.message), String(why));
  }
});

/** The IDAT of a PNG written by png() above, inflated: what its header must declare. */
const inflatedData = (b: Buffer) => inflateSync(b.subarray(b.indexOf('IDAT') + 4, b.indexOf('IEND') - 8)).length;

test('the header declares exactly what the data inflates to: every colour type and depth, interlaced or not', () => {
  for (const [type, depth] of [[0, 1], [0, 4], [0, 16], [2, 8], [2, 16], [3, 2], [4, 8], [6, 8], [6, 16]] as const) {
    for (const interlace of [false, true]) {
      for (const [w, h] of [[1, 1], [3, 2], [13, 9], [37, 23]] as const) {
        const plte = type === 3 ? Buffer.alloc(12, 7) : undefined;
        const bytes = png({ width: w, height: h, type, depth, interlace, ...(plte ? { plte } : {}) }, () => Array(type === 2 ? 3 : type === 4 ? 2 : type === 6 ? 4 : 1).fill(1));
        assert.equal(readPngHeader(bytes, 1e6).inflatedBytes, inflatedData(bytes), `type ${type}, ${depth} bits, ${w}×${h}, interlaced ${interlace}`);
      }
    }
  }
});

test('data that inflates to more or less than the header declares is refused, and nothing past the declared size is inflated', () => {
  const rule = (rule: string, why: RegExp) => (err: unknown) => err instanceof PngError && err.rule === rule && why.test(err.message);
  // a 1×1 RGBA image's data is 5 bytes: 4 KB of compressed data is refused from the header
  assert.throws(() => readPngHeader(zeroPng(1, 1, 4 << 20), 1e6), rule('declared_size', /bytes of image data is more than a 1×1 image holds/));
  // within what stored blocks could take, the data is inflated only up to the declared size
  const before = process.memoryUsage().rss;
  assert.throws(() => decodePng(zeroPng(64, 64, 32 << 20), 1e6), rule('declared_size', /inflates to more than the 16448 bytes its IHDR declares/));
  assert.ok(process.memoryUsage().rss - before < 16 << 20, 'the 32 MiB were never inflated');
  assert.throws(() => decodePng(zeroPng(64, 64, 16448 + 1), 1e6), rule('declared_size', /more than the 16448 bytes/));
  assert.throws(() => decodePng(zeroPng(64, 64, 16448 - 65), 1e6), rule('declared_size', /inflates to 16383 bytes, not the 16448/));
  // interlaced: the seven passes' rows, each with its filter byte
  const declared = readPngHeader(pngWithData({ width: 9, height: 9, idat: zerosStream(1), interlace: true }), 1e6).inflatedBytes;
  assert.equal(decodePng(pngWithData({ width: 9, height: 9, idat: zerosStream(declared), interlace: true }), 1e6).data.length, 9 * 9 * 4);
  assert.throws(() => decodePng(pngWithData({ width: 9, height: 9, idat: zerosStream(declared + 1), interlace: true }), 1e6), rule('declared_size', /more than/));
  // the exact size decodes (to transparent black: zeros)
  assert.deepEqual([...decodePng(zeroPng(64, 64, 16448), 1e6).data.subarray(0, 8)], [0, 0, 0, 0, 0, 0, 0, 0]);
  // every refusal carries its rule
  assert.throws(() => decodePng(Buffer.from('hello world'), 1e6), rule('png_signature', /signature/));
  assert.throws(() => readPngHeader(zeroPng(2000, 2000, 10), 1e6), rule('max_pixels', /more than 1000000 pixels/));
  assert.throws(() => decodePng(pngWithData({ width: 4, height: 4, idat: Buffer.from('not zlib at all') }), 1e6), rule('png_data', /does not inflate/));
  assert.throws(() => readPngHeader(pngWithData({ width: 4, height: 4, idat: Buffer.alloc(0) }), 1e6), rule('png_chunks', /no image data/));
  // the header is read on the request's thread: a file of tens of thousands of chunks is refused at 16,384
  const many = Buffer.concat([pngWithData({ width: 4, height: 4, idat: zerosStream(68) }).subarray(0, -12), ...Array(20_000).fill(chunk('tEXt', Buffer.alloc(0)))]);
  assert.throws(() => readPngHeader(many, 1e6), rule('png_chunks', /more than 16384 chunks/));
});

test('the compressed-data bound admits what encoders write: stored blocks of incompressible pixels', () => {
  const noise = Buffer.alloc(64 * 257).map((_, i) => (i * 2654435761) >>> 24);
  for (let r = 0; r < 64; r++) noise[r * 257] = 0; // filter bytes: none
  const stored = deflateSync(noise, { level: 0 });
  assert.ok(stored.length > noise.length && stored.length <= maxIdatBytes(noise.length));
  assert.equal(decodePng(pngWithData({ width: 64, height: 64, idat: stored }), 1e6).width, 64);
});
