// The media model catalogue through HTTP: every filter of interface.md, dotted and bracketed
// keys, keyset cursors while records are added, the limit's range, signed download links
// that hash to hash_sha256 and expire, the demo catalogue, and team uploads.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp, type TestApp } from '../../../../test/helpers/app.ts';
import { as } from '../../../../test/helpers/http.ts';
import { createTeam, type Team } from '../../../../test/helpers/factories.ts';
import { fetchLink, importModel, sha256, uploadModel } from '../../../../test/helpers/media.ts';
import { postMultipart } from '../../../../test/helpers/media.ts';
import { seedMediaDemo } from '../../../domain/media/demo.ts';

async function withApp(fn: (t: TestApp, team: Team) => Promise<void>): Promise<void> {
  const t = await buildTestApp();
  try {
    await fn(t, await createTeam(t.app, t.creds.adminToken));
  } finally {
    await t.close();
  }
}

/** Every record the key sees with `query`, page by page (limit 100). */
async function all(t: TestApp, key: string, query: Record<string, string> = {}) {
  const out: any[] = [];
  let cursor = '';
  for (let i = 0; i < 100; i++) {
    const r = await as(t.app, key).get('/v3/model', { ...query, 'pagination.limit': '100', ...(cursor ? { 'pagination.cursor': cursor } : {}) });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    out.push(...r.body.models);
    cursor = r.body.pagination.next_cursor;
    if (!cursor) return out;
  }
  throw new Error('did not end');
}

const names = (rs: any[]) => rs.map((r) => r.sd_name).sort();

test('the demo catalogue: ≥ 30 records, six types, SDXL and not, inpainting, three sources; files hash to hash_sha256', async () => {
  await withApp(async (t, team) => {
    await seedMediaDemo(t.services.ctx, t.services.blobs.store);
    const rs = await all(t, team.owner.apiKey);
    assert.ok(rs.length >= 30, `${rs.length} records`);
    assert.deepEqual(new Set(rs.map((r) => r.type.name)), new Set(['checkpoint', 'lora', 'vae', 'controlnet', 'upscaler', 'textualinversion']));
    assert.deepEqual(new Set(rs.map((r) => r.source)), new Set(['civitai', 'training', 'uploading']));
    assert.ok(rs.some((r) => r.is_sdxl) && rs.some((r) => !r.is_sdxl));
    assert.ok(rs.some((r) => r.type.name === 'checkpoint' && r.base_model_type === 'Inpainting'));
    for (const r of rs) {
      assert.equal(r.status, 1);
      assert.equal(r.download_url_ttl, 86400);
      const got = await fetchLink(t, r.download_url);
      assert.equal(got.status, 200);
      assert.equal(got.contentType, 'application/octet-stream', 'a model file is bytes, whatever its name says');
      assert.equal(sha256(got.bytes), r.hash_sha256, r.sd_name);
    }
    // every field of interface.md
    const lora = rs.find((r) => r.sd_name === 'add_detail.safetensors');
    assert.deepEqual(Object.keys(lora).sort(), ['base_model', 'base_model_type', 'categories', 'cover_url', 'download_url', 'download_url_ttl', 'hash_sha256',
      'id', 'is_sdxl', 'name', 'sd_name', 'sd_name_in_api', 'source', 'status', 'tags', 'type']);
    assert.deepEqual(lora.type, { name: 'lora', display_name: 'LoRA' });
    assert.equal(lora.sd_name_in_api, 'add_detail');
    // seeding again replaces, never duplicates
    await seedMediaDemo(t.services.ctx, t.services.blobs.store);
    assert.equal((await all(t, team.owner.apiKey)).length, rs.length);
  });
});

test('filters: visibility, source, types (dotted and bracketed), is_sdxl, query over sd_name, name and tags, is_inpainting', async () => {
  await withApp(async (t, team) => {
    const other = await createTeam(t.app, t.creds.adminToken);
    await importModel(t, { type: 'checkpoint', sd_name: 'base_xl.safetensors', is_sdxl: true, source: 'civitai', tags: ['photo'] });
    await importModel(t, { type: 'checkpoint', sd_name: 'fill.ckpt', base_model_type: 'Inpainting', source: 'training' });
    await importModel(t, { type: 'checkpoint', sd_name: 'fill_xl.ckpt', base_model_type: 'Inpainting', is_sdxl: true });
    await importModel(t, { type: 'lora', sd_name: 'ink.safetensors', name: 'Ink Wash Painting', tags: ['Sumi-e'] });
    await importModel(t, { type: 'vae', sd_name: 'vae_100%_x.pt' });
    const mine = await uploadModel(t, team.members.Developer.apiKey, { type: 'lora', sd_name: 'my_face.safetensors', tags: ['portrait'] });
    assert.equal(mine.status, 200, JSON.stringify(mine.body));
    assert.equal(mine.body.source, 'uploading');
    const theirs = await uploadModel(t, other.owner.apiKey, { type: 'lora', sd_name: 'their_face.safetensors' });
    assert.equal(theirs.status, 200);
    const key = team.owner.apiKey;

    assert.deepEqual(names(await all(t, key)), ['base_xl.safetensors', 'fill.ckpt', 'fill_xl.ckpt', 'ink.safetensors', 'my_face.safetensors', 'vae_100%_x.pt']);
    assert.deepEqual(names(await all(t, key, { 'filter.visibility': 'private' })), ['my_face.safetensors']);
    assert.deepEqual(names(await all(t, other.owner.apiKey, { 'filter.visibility': 'private' })), ['their_face.safetensors']);
    assert.equal((await all(t, key, { 'filter.visibility': 'public' })).length, 5);
    assert.deepEqual(names(await all(t, key, { 'filter.source': 'training' })), ['fill.ckpt']);
    assert.deepEqual(names(await all(t, key, { 'filter.source': 'uploading' })), ['my_face.safetensors']);
    assert.deepEqual(names(await all(t, key, { 'filter.types': 'lora' })), ['ink.safetensors', 'my_face.safetensors']);
    assert.deepEqual(names(await all(t, key, { 'filter[types]': 'lora' })), ['ink.safetensors', 'my_face.safetensors']);
    assert.deepEqual(names(await all(t, key, { 'filter[types]': 'lora,vae', 'filter[visibility]': 'public' })), ['ink.safetensors', 'vae_100%_x.pt']);
    assert.deepEqual(names(await all(t, key, { 'filter.is_sdxl': 'true' })), ['base_xl.safetensors', 'fill_xl.ckpt']);
    assert.equal((await all(t, key, { 'filter.is_sdxl': 'false' })).length, 4);
    assert.deepEqual(names(await all(t, key, { 'filter.is_inpainting': 'true' })), ['fill.ckpt', 'fill_xl.ckpt']);
    assert.deepEqual(names(await all(t, key, { 'filter.is_inpainting': 'true', 'filter.is_sdxl': 'false' })), ['fill.ckpt']);
    assert.equal((await all(t, key, { 'filter.is_inpainting': 'false' })).length, 6, 'false does not filter');
    // query: sd_name, name and tags, case-insensitively; % and _ are literal
    assert.deepEqual(names(await all(t, key, { 'filter.query': 'INK' })), ['ink.safetensors']);
    assert.deepEqual(names(await all(t, key, { 'filter.query': 'wash paint' })), ['ink.safetensors']);
    assert.deepEqual(names(await all(t, key, { 'filter.query': 'sumi-e' })), ['ink.safetensors']);
    assert.deepEqual(names(await all(t, key, { 'filter.query': 'portrait' })), ['my_face.safetensors']);
    assert.deepEqual(names(await all(t, key, { 'filter.query': '100%' })), ['vae_100%_x.pt']);
    assert.deepEqual(names(await all(t, key, { 'filter.query': '%' })), ['vae_100%_x.pt']);
    assert.deepEqual(names(await all(t, key, { 'filter.query': 'face' })), ['my_face.safetensors'], 'another team\'s record never matches');

    for (const [k, v] of [['filter.types', 'model'], ['filter.source', 'x'], ['filter.visibility', 'all'], ['filter.is_sdxl', 'yes'], ['filter[is_inpainting]', 'maybe']]) {
      const r = await as(t.app, key).get('/v3/model', { [k!]: v! });
      assert.equal(r.status, 400, `${k}=${v}`);
      assert.equal(r.body.reason, 'INVALID_REQUEST_BODY');
      assert.equal(r.body.metadata.field, k!.replace('[', '.').replace(']', ''));
    }
  });
});

test('paging: limit in (0, 100], keyset cursors that never repeat or skip a record while records are added', async () => {
  await withApp(async (t, team) => {
    const key = team.owner.apiKey;
    for (let i = 0; i < 7; i++) await importModel(t, { type: 'lora', sd_name: `l${i}.safetensors` });
    for (const limit of ['0', '101', '-1', '2.5', 'x']) {
      const r = await as(t.app, key).get('/v3/model', { 'pagination.limit': limit });
      assert.equal(r.status, 400, limit);
      assert.equal(r.body.reason, 'INVALID_REQUEST_BODY');
      assert.equal(r.body.metadata.field, 'pagination.limit');
    }
    assert.equal((await as(t.app, key).get('/v3/model', { 'pagination.limit': '100' })).status, 200);
    const badCursor = await as(t.app, key).get('/v3/model', { 'pagination.cursor': 'nonsense' });
    assert.equal(badCursor.status, 400);
    assert.equal(badCursor.body.metadata.field, 'pagination.cursor');

    const seen: string[] = [];
    let cursor = '';
    let added = 0;
    for (;;) {
      const r = await as(t.app, key).get('/v3/model', { 'pagination[limit]': '3', ...(cursor ? { 'pagination[cursor]': cursor } : {}) });
      assert.equal(r.status, 200);
      assert.ok(r.body.models.length <= 3);
      seen.push(...r.body.models.map((m: any) => m.sd_name));
      cursor = r.body.pagination.next_cursor;
      // records added between pages (public and private) come after the ones already paged
      if (added < 3) {
        await importModel(t, { type: 'vae', sd_name: `added${added++}.pt` });
        if (added === 2) assert.equal((await uploadModel(t, key, { type: 'lora', sd_name: 'mine_added.safetensors' })).status, 200);
      }
      if (!cursor) break;
    }
    assert.equal(new Set(seen).size, seen.length, `no repeats: ${seen}`);
    assert.deepEqual(seen.slice(0, 7), ['l0', 'l1', 'l2', 'l3', 'l4', 'l5', 'l6'].map((n) => `${n}.safetensors`));
    assert.deepEqual(seen.slice(7), ['added0.pt', 'added1.pt', 'mine_added.safetensors', 'added2.pt']);
    // the last page's cursor is empty
    const last = await as(t.app, key).get('/v3/model', { 'pagination.limit': '100' });
    assert.equal(last.body.pagination.next_cursor, '');
  });
});

test('download links are signed, expire after download_url_ttl, and stream the file', async () => {
  await withApp(async (t, team) => {
    const rec = await importModel(t, { type: 'checkpoint', sd_name: 'a.safetensors' }, Buffer.alloc(70_000, 7));
    const [m] = (await as(t.app, team.owner.apiKey).get('/v3/model')).body.models;
    assert.equal(m.hash_sha256, sha256(Buffer.alloc(70_000, 7)));
    assert.equal(m.hash_sha256, rec.hash_sha256);
    const ok = await fetchLink(t, m.download_url);
    assert.equal(ok.status, 200);
    assert.equal(ok.bytes.length, 70_000);
    // another first character of the signature (one in 64 signatures begins with 'A' already)
    const tampered = await fetchLink(t, m.download_url.replace(/signature=(.)/, (_: string, c: string) => `signature=${c === 'A' ? 'B' : 'A'}`));
    assert.equal(tampered.status, 403);
    t.clock.advance(86_400_000 + 1000);
    assert.equal((await fetchLink(t, m.download_url)).status, 403);
  });
});

test('team uploads: status 1 once hashed, fields before the file, unique per team, delete only its own', async () => {
  await withApp(async (t, team) => {
    const other = await createTeam(t.app, t.creds.adminToken);
    const up = await uploadModel(t, team.members.Basic.apiKey, { type: 'checkpoint', sd_name: 'mine.safetensors', base_model: 'SD 1.5', is_sdxl: false }, 'weights');
    assert.equal(up.status, 200, JSON.stringify(up.body));
    assert.equal(up.body.status, 1);
    assert.equal(up.body.hash_sha256, sha256(Buffer.from('weights')));
    assert.equal(up.body.sd_name_in_api, 'mine.safetensors');
    assert.equal(up.body.base_model, 'SD 1.5');
    // the same name again in the team: refused; another team may use it
    const again = await uploadModel(t, team.owner.apiKey, { type: 'checkpoint', sd_name: 'mine.safetensors' });
    assert.equal(again.status, 400);
    assert.equal(again.body.reason, 'INVALID_REQUEST_BODY');
    assert.equal((await uploadModel(t, other.owner.apiKey, { type: 'checkpoint', sd_name: 'mine.safetensors' })).status, 200);
    // the file before the fields, an unknown type, no file: refused with the field named
    const early = await postMultipart(t, '/v3/model/upload', team.owner.apiKey, [['file', { filename: 'x.pt', content: 'x' }], ['type', 'vae']]);
    assert.equal(early.status, 400);
    assert.equal(early.body.metadata.field, 'type');
    const badType = await uploadModel(t, team.owner.apiKey, { type: 'model', sd_name: 'y.pt' });
    assert.equal(badType.body.metadata.field, 'type');
    const noFile = await postMultipart(t, '/v3/model/upload', team.owner.apiKey, [['type', 'vae']]);
    assert.equal(noFile.body.metadata.field, 'file');
    // delete: another team's record and a public one are not found; the team's own goes, with its file
    const pub = await importModel(t, { type: 'vae', sd_name: 'pub.pt' });
    for (const id of [pub.id, 99999]) {
      const r = await as(t.app, other.owner.apiKey).delete(`/v3/model/${id}`);
      assert.equal(r.status, 404);
      assert.equal(r.body.reason, 'API_NOT_FOUND');
    }
    assert.equal((await as(t.app, other.owner.apiKey).delete(`/v3/model/${up.body.id}`)).status, 404);
    assert.equal((await as(t.app, team.owner.apiKey).delete(`/v3/model/${up.body.id}`)).status, 200);
    assert.equal((await fetchLink(t, up.body.download_url)).status, 404);
    assert.deepEqual(names(await all(t, team.owner.apiKey)), ['pub.pt']);
    // the operator removes a public record
    assert.equal((await as(t.app, t.creds.adminToken).delete(`/admin/v1/media/models/${pub.id}`)).status, 200);
    assert.equal((await as(t.app, t.creds.adminToken).delete(`/admin/v1/media/models/${pub.id}`)).status, 404);
  });
});
