// One behaviour for every blob store: the same suite runs against local disk and against
// S3 (an s3rver stand-in on a random port, started and stopped here).
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { text } from 'node:stream/consumers';
import { LocalBlobStore } from './local.ts';
import { S3BlobStore } from './s3.ts';
import { BlobNotFoundError, BlobRangeError, type BlobStore } from './types.ts';
import { BlobLinks } from './links.ts';
import { startS3, type S3StandIn } from '../../../test/helpers/s3.ts';

async function* chunksOf(...parts: (string | Buffer)[]): AsyncGenerator<Uint8Array> {
  for (const p of parts) yield typeof p === 'string' ? Buffer.from(p) : p;
}

async function* failingAfter(bytes: number): AsyncGenerator<Uint8Array> {
  yield Buffer.alloc(bytes, 120);
  throw new Error('line 3: not JSON');
}

async function bytesOf(s: NodeJS.ReadableStream): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of s) parts.push(Buffer.from(c as Uint8Array));
  return Buffer.concat(parts);
}

const sha = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

function contract(name: string, open: () => Promise<{ store: BlobStore; leftovers(): string[]; close(): Promise<void> }>): void {
  describe(`blob store contract: ${name}`, () => {
    let h: Awaited<ReturnType<typeof open>>;
    let store: BlobStore;
    const k = (s: string) => `t/${randomBytes(6).toString('hex')}/${s}`;
    before(async () => {
      h = await open();
      store = h.store;
    });
    after(async () => h.close());

    test('put streams, answers bytes and sha256; get and stat read it back', async () => {
      const key = k('a.jsonl');
      const r = await store.put(key, chunksOf('{"a":1}\n', '{"b":2}\n'), { contentType: 'application/jsonl' });
      assert.deepEqual(r, { bytes: 16, sha256: sha('{"a":1}\n{"b":2}\n') });
      assert.equal(await text(await store.get(key)), '{"a":1}\n{"b":2}\n');
      assert.deepEqual(await store.stat(key), { bytes: 16 });
    });

    test('an empty blob is a blob', async () => {
      const key = k('empty');
      assert.deepEqual(await store.put(key, chunksOf()), { bytes: 0, sha256: sha('') });
      assert.deepEqual(await store.stat(key), { bytes: 0 });
      assert.equal((await bytesOf(await store.get(key))).length, 0);
    });

    test('a multi-part body (larger than one S3 part) keeps every byte in order', async () => {
      const key = k('big');
      const parts = Array.from({ length: 5 }, (_, i) => Buffer.alloc(4 * 1024 * 1024 + i, 97 + i));
      const all = Buffer.concat(parts);
      const r = await store.put(key, chunksOf(...parts));
      assert.deepEqual(r, { bytes: all.length, sha256: sha(all) });
      assert.equal(sha(await bytesOf(await store.get(key))), sha(all));
    });

    test('ranges: inclusive, open-ended, clamped at the end; starting past the end is a BlobRangeError', async () => {
      const key = k('r');
      await store.put(key, chunksOf('0123456789'));
      assert.equal(await text(await store.get(key, { start: 2, end: 4 })), '234');
      assert.equal(await text(await store.get(key, { start: 7 })), '789');
      assert.equal(await text(await store.get(key, { start: 8, end: 100 })), '89');
      await assert.rejects(store.get(key, { start: 10 }), (e: unknown) => e instanceof BlobRangeError && e.bytes === 10);
    });

    test('put replaces; delete removes and is idempotent; an absent key is BlobNotFoundError / undefined', async () => {
      const key = k('x');
      await store.put(key, chunksOf('one'));
      await store.put(key, chunksOf('two!'));
      assert.equal(await text(await store.get(key)), 'two!');
      await store.delete(key);
      await store.delete(key);
      assert.equal(await store.stat(key), undefined);
      await assert.rejects(store.get(key), BlobNotFoundError);
      await assert.rejects(store.get(key, { start: 0 }), BlobNotFoundError);
    });

    test('a body that fails leaves nothing: no blob, the earlier content kept, no temporary file', async () => {
      const fresh = k('fails');
      await assert.rejects(store.put(fresh, failingAfter(10 * 1024 * 1024)), /line 3: not JSON/);
      assert.equal(await store.stat(fresh), undefined);
      const kept = k('kept');
      await store.put(kept, chunksOf('old'));
      await assert.rejects(store.put(kept, failingAfter(100)), /not JSON/);
      assert.equal(await text(await store.get(kept)), 'old');
      assert.deepEqual(h.leftovers(), []);
    });

    test('an aborted put leaves nothing', async () => {
      const key = k('aborted');
      const ac = new AbortController();
      async function* slow(): AsyncGenerator<Uint8Array> {
        yield Buffer.alloc(1024, 1);
        ac.abort(new Error('client went away'));
        yield Buffer.alloc(1024, 2);
      }
      await assert.rejects(store.put(key, slow(), { signal: ac.signal }));
      assert.equal(await store.stat(key), undefined);
      assert.deepEqual(h.leftovers(), []);
    });

    test('keys that are not safe paths are refused before any I/O', async () => {
      for (const bad of ['', '../x', 'a/../b', '/abs', 'a//b', '.hidden', 'a/.tmp/b', 'sp ace', 'x'.repeat(513), 'a\\b']) {
        await assert.rejects(store.put(bad, chunksOf('x')), /invalid blob key/, bad);
        await assert.rejects(store.get(bad), /invalid blob key/, bad);
      }
    });

    test('parallel puts of different keys do not mix', async () => {
      const keys = Array.from({ length: 8 }, (_, i) => k(`p${i}`));
      await Promise.all(keys.map((key, i) => store.put(key, chunksOf(`blob ${i} `.repeat(1000)))));
      for (const [i, key] of keys.entries()) assert.equal(await text(await store.get(key)), `blob ${i} `.repeat(1000));
    });
  });
}

contract('local disk', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gantry-blobs-'));
  return {
    store: await LocalBlobStore.open(dir),
    leftovers: () => readdirSync(join(dir, '.tmp')),
    close: async () => rmSync(dir, { recursive: true, force: true }),
  };
});

contract('S3 (s3rver)', async () => {
  const s3: S3StandIn = await startS3();
  const store = new S3BlobStore(s3.settings);
  return {
    store,
    // s3rver keeps no multipart parts once an upload is aborted; objects are checked by stat above
    leftovers: () => [],
    close: async () => {
      await store.close();
      await s3.stop();
    },
  };
});

test('signed links: verified with their expiry, refused when changed or late', () => {
  let now = 1_700_000_000_000;
  const links = new BlobLinks(randomBytes(32), 'http://gantry.local:8080/', () => now);
  const url = new URL(links.url('files/usr_1/file_2', 60));
  assert.equal(url.origin + url.pathname, 'http://gantry.local:8080/blobs/files/usr_1/file_2');
  const expires = url.searchParams.get('expires')!;
  const signature = url.searchParams.get('signature')!;
  assert.equal(Number(expires), 1_700_000_060);
  assert.equal(links.check('files/usr_1/file_2', expires, signature), 'ok');
  assert.equal(links.check('files/usr_1/file_3', expires, signature), 'invalid');
  assert.equal(links.check('files/usr_1/file_2', String(Number(expires) + 1), signature), 'invalid');
  assert.equal(links.check('files/usr_1/file_2', expires, signature.slice(1)), 'invalid');
  assert.equal(links.check('files/usr_1/file_2', '1e9', signature), 'invalid');
  now += 60_000;
  assert.equal(links.check('files/usr_1/file_2', expires, signature), 'expired');
  const other = new BlobLinks(randomBytes(32), 'http://gantry.local:8080', () => now);
  assert.equal(other.check('files/usr_1/file_2', expires, signature), 'invalid');
});
