// importPublicModels, the many-at-once import the first start's demo catalogue uses (the
// operator's one-file import is the same function with one item: src/cli/media-import.test.ts
// and src/http/routes/media/catalogue.test.ts show those through HTTP).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openTestStore } from '../../../test/helpers/app.ts';
import { openBlobStore } from '../../store/blobs/index.ts';
import { standaloneCtx } from '../context.ts';
import { ManualClock } from '../../lib/clock.ts';
import * as q from '../../store/media.ts';
import { sql } from 'drizzle-orm';
import { checkModelInput, importPublicModel, importPublicModels } from './catalogue.ts';

async function* bytes(s: string): AsyncGenerator<Uint8Array> {
  yield Buffer.from(s);
}

async function* failing(): AsyncGenerator<Uint8Array> {
  yield Buffer.from('half');
  throw new Error('the source went away');
}

const model = (sdName: string, name = sdName) => checkModelInput({ type: 'lora', sd_name: sdName, name }, sdName, { public: true });

async function setup(t: { after(fn: () => Promise<void> | void): void }) {
  const store = await openTestStore();
  const dir = mkdtempSync(join(tmpdir(), 'gantry-import-'));
  const blobs = await openBlobStore({ kind: 'local', dir } as never);
  t.after(async () => {
    await blobs.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const files = () => (readdirSync(dir, { recursive: true }) as string[]).filter((p) => p.startsWith('media/models/') && !p.endsWith('/')).sort();
  return { ctx: standaloneCtx(store.db, new ManualClock()), blobs, files };
}

test('many records at once: new ones inserted, an existing one replaced (its old file gone), rows in the order given', async (t) => {
  const { ctx, blobs, files } = await setup(t);
  const old = await importPublicModel(ctx, blobs, model('batch_ink.safetensors', 'Ink v1'), bytes('v1'));
  assert.deepEqual(files(), [old.blobKey]);
  const rows = await importPublicModels(ctx, blobs, [
    { model: model('batch_a.safetensors'), stream: bytes('a') },
    { model: model('batch_ink.safetensors', 'Ink v2'), stream: bytes('v2') },
    { model: model('batch_b.safetensors'), stream: bytes('bb') },
  ]);
  assert.deepEqual(rows.map((r) => [r.sdNameInApi, r.name, r.bytes]), [['batch_a', 'batch_a.safetensors', 1], ['batch_ink', 'Ink v2', 2], ['batch_b', 'batch_b.safetensors', 2]]);
  assert.equal(rows[1]!.id, old.id, 'replaced in place');
  assert.deepEqual(files(), rows.map((r) => r.blobKey).sort(), 'the three new files, and not the replaced one');
  const stored = await q.findPublicModelsByNames(ctx.db, ['batch_a', 'batch_ink', 'batch_b']);
  assert.equal(stored.length, 3);
});

test('a file that fails leaves no new file and no record behind; an existing record keeps its file', async (t) => {
  const { ctx, blobs, files } = await setup(t);
  const old = await importPublicModel(ctx, blobs, model('batch_keep.safetensors'), bytes('keep'));
  await assert.rejects(importPublicModels(ctx, blobs, [
    { model: model('batch_new.safetensors'), stream: bytes('new') },
    { model: model('batch_keep.safetensors'), stream: bytes('replacement') },
    { model: model('batch_bad.safetensors'), stream: failing() },
  ]), /the source went away/);
  assert.deepEqual(files(), [old.blobKey]);
  const stored = await q.findPublicModelsByNames(ctx.db, ['batch_new', 'batch_keep', 'batch_bad']);
  assert.deepEqual(stored.map((r) => [r.sdNameInApi, r.blobKey, r.bytes]), [['batch_keep', old.blobKey, 4]]);
});

test('a record that fails after others were replaced leaves every record as it was, with its file', async (t) => {
  const { ctx, blobs, files } = await setup(t);
  const keep = await importPublicModel(ctx, blobs, model('batch_keep2.safetensors', 'Keep v1'), bytes('keep'));
  const gone = await importPublicModel(ctx, blobs, model('batch_gone.safetensors'), bytes('gone'));
  // The second record "is deleted during the import": its update finds no row (a trigger
  // skips it), after the first record's update went through in the same batch.
  await ctx.db.execute(sql.raw(`
    create function test_skip_gone() returns trigger language plpgsql as $$
    begin if new.sd_name_in_api = 'batch_gone' then return null; end if; return new; end $$`));
  await ctx.db.execute(sql.raw('create trigger test_skip_gone before update on media_models for each row execute function test_skip_gone()'));
  await assert.rejects(importPublicModels(ctx, blobs, [
    { model: model('batch_keep2.safetensors', 'Keep v2'), stream: bytes('keep v2') },
    { model: model('batch_gone.safetensors'), stream: bytes('gone v2') },
  ]), (e: Error & { reason?: string }) => e.reason === 'CONFLICT' && /batch_gone was deleted during the import/.test(e.message));
  const stored = await q.findPublicModelsByNames(ctx.db, ['batch_keep2', 'batch_gone']);
  assert.deepEqual(stored.map((r) => [r.sdNameInApi, r.name, r.blobKey]).sort(), [['batch_gone', 'batch_gone.safetensors', gone.blobKey], ['batch_keep2', 'Keep v1', keep.blobKey]]);
  assert.deepEqual(files(), [keep.blobKey, gone.blobKey].sort(), 'the records\' files are there; the batch\'s new files are gone');
});
