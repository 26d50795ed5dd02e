// A regular file of a container, read through the engine's archive API (`GET
// /containers/{name}/archive?path=`, what `docker cp` reads; Docker and Podman alike): a tar
// stream holding the path, whose first file entry is streamed out as it comes, header by
// header, never held whole. PAX and GNU long-name entries before it are skipped. Anything but
// a regular file (a directory, a symlink the engine does not follow) answers undefined: the
// caller reads it another way. No tool is needed in the image.
import { Readable } from 'node:stream';
import { type EngineClient, isNotFound } from './engine.ts';

const BLOCK = 512;
/** entries that only describe the next one (PAX extended and global headers, GNU long names) */
const META = new Set(['x', 'g', 'L', 'K']);

/** A tar header's size field: octal text, or base-256 (high bit set) for sizes past 8 GiB. */
export function tarSize(field: Buffer): number {
  if (field[0]! & 0x80) {
    let n = 0;
    for (let i = 1; i < field.length; i++) n = n * 256 + field[i]!;
    return n;
  }
  const text = field.toString('latin1').replace(/\0.*$/s, '').trim();
  return text ? Number.parseInt(text, 8) : 0;
}

/** Bytes of a stream, `n` at a time. */
class Chunks {
  private buf: Buffer = Buffer.alloc(0);
  private readonly it: AsyncIterator<Buffer>;
  constructor(it: AsyncIterator<Buffer>) {
    this.it = it;
  }
  /** exactly `n` bytes, or fewer at the stream's end */
  async take(n: number): Promise<Buffer> {
    while (this.buf.length < n) {
      const next = await this.it.next();
      if (next.done) break;
      this.buf = this.buf.length ? Buffer.concat([this.buf, next.value]) : next.value;
    }
    const out = this.buf.subarray(0, n);
    this.buf = this.buf.subarray(out.length);
    return out;
  }
  /** whatever is there now (at most `max`), reading once more when nothing is; empty at the end */
  async some(max: number): Promise<Buffer> {
    if (!this.buf.length) {
      const next = await this.it.next();
      if (next.done) return Buffer.alloc(0);
      this.buf = next.value;
    }
    const out = this.buf.subarray(0, max);
    this.buf = this.buf.subarray(out.length);
    return out;
  }
}

/** The file at `path` of container `name` as a stream of its bytes, or undefined when it is no regular file. */
export async function readContainerFile(engine: EngineClient, name: string, path: string): Promise<Readable | undefined> {
  let res: Awaited<ReturnType<EngineClient['stream']>>;
  try {
    res = await engine.stream('GET', `/containers/${name}/archive`, { query: { path } });
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
  const body = res.body;
  const chunks = new Chunks(body[Symbol.asyncIterator]() as AsyncIterator<Buffer>);
  let size = -1;
  for (;;) {
    const header = await chunks.take(BLOCK);
    if (header.length < BLOCK || header.every((b) => b === 0)) break;
    const type = String.fromCharCode(header[156]!);
    const entrySize = tarSize(header.subarray(124, 136));
    if (META.has(type)) {
      await chunks.take(Math.ceil(entrySize / BLOCK) * BLOCK);
      continue;
    }
    if (type === '0' || type === '\0') size = entrySize;
    break;
  }
  if (size < 0) {
    body.destroy();
    return undefined;
  }
  async function* content(): AsyncGenerator<Buffer> {
    try {
      for (let left = size; left > 0;) {
        const part = await chunks.some(Math.min(left, 256 * 1024));
        if (!part.length) throw new Error('the engine\'s archive ended inside the file');
        left -= part.length;
        yield part;
      }
    } finally {
      body.destroy();
    }
  }
  return Readable.from(content(), { objectMode: false });
}
