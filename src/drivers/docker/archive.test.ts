// Reading a file out of the engine's archive answer (archive.ts), against a local HTTP server
// that answers GET /containers/{name}/archive as an engine does: a tar of the path, PAX header
// first where Go's archive/tar writes one; the file's bytes come out whole and in order, a
// symlink or directory answers undefined (the SFTP server then reads it by exec), a missing
// path too; sizes in octal and in base-256.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { randomBytes } from 'node:crypto';
import { EngineClient } from './engine.ts';
import { readContainerFile, tarSize } from './archive.ts';

function header(name: string, size: number, type: string): Buffer {
  const h = Buffer.alloc(512);
  h.write(name, 0, 'latin1');
  h.write(`${size.toString(8).padStart(11, '0')}\0`, 124, 'latin1');
  h.write(type, 156, 'latin1');
  return h;
}
const pad = (b: Buffer) => Buffer.concat([b, Buffer.alloc((512 - (b.length % 512)) % 512)]);

test('a file streams out of the archive (past a PAX header); a symlink, a directory, a missing path answer undefined', async () => {
  const file = randomBytes(700_001);
  const pax = Buffer.from('30 path=a-very-long-name.bin\n');
  const tars: Record<string, Buffer | undefined> = {
    '/data/f.bin': Buffer.concat([header('././@PaxHeader', pax.length, 'x'), pad(pax), header('f.bin', file.length, '0'), pad(file), Buffer.alloc(1024)]),
    '/data/link': Buffer.concat([header('link', 0, '2'), Buffer.alloc(1024)]),
    '/data': Buffer.concat([header('data/', 0, '5'), Buffer.alloc(1024)]),
  };
  const server = createServer((req, res) => {
    const path = new URL(req.url!, 'http://x').searchParams.get('path')!;
    const tar = tars[path];
    if (!tar) return void res.writeHead(404, { 'content-type': 'application/json' }).end('{"message":"Could not find the file"}');
    res.writeHead(200, { 'content-type': 'application/x-tar' });
    // in pieces, as a socket delivers it
    for (let at = 0; at < tar.length; at += 4096) res.write(tar.subarray(at, at + 4096));
    res.end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as { port: number };
  const engine = new EngineClient({ origin: `http://127.0.0.1:${port}` });
  try {
    const stream = await readContainerFile(engine, 'c', '/data/f.bin');
    assert.ok(stream);
    const parts: Buffer[] = [];
    for await (const c of stream) parts.push(c as Buffer);
    assert.ok(Buffer.concat(parts).equals(file));
    assert.equal(await readContainerFile(engine, 'c', '/data/link'), undefined);
    assert.equal(await readContainerFile(engine, 'c', '/data'), undefined);
    assert.equal(await readContainerFile(engine, 'c', '/nothing'), undefined);
  } finally {
    await engine.close();
    server.close();
  }
});

test('tar sizes: octal, and base-256 past 8 GiB', () => {
  assert.equal(tarSize(Buffer.from('00000001750\0', 'latin1')), 1000);
  const big = Buffer.alloc(12);
  big[0] = 0x80;
  big.writeUIntBE(10 * 1024 ** 3, 6, 6);
  assert.equal(tarSize(big), 10 * 1024 ** 3);
});
